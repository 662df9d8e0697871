import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClientError } from '../../../packages/client/src/index.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { at, insertPatient, makeCalendar } from '../../helpers/seed.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** A typed availability call (the project's client, generated OpenAPI types) for a window. */
const availability = (t: Tenant, id: string, from: Date, to: Date) =>
  server.api(t.token).callWithResponse('getCalendarAvailability', { params: { path: { id }, query: { from: from.toISOString(), to: to.toISOString() } } });

describe('calendar rules through the API', () => {
  it('minimum notice: no slot and no booking sooner than the notice', async () => {
    const t = await server.factories.tenant();
    const cal = await makeCalendar(server, t, { minNoticeMinutes: 180, slotMinutes: 30 });
    const now = Date.now();
    const { data: res, response } = await availability(t, cal.id, new Date(now), new Date(now + 6 * 3_600_000));
    expect(response.status).toBe(200);
    expect(res.data.length).toBeGreaterThan(0);
    for (const slot of res.data) expect(Date.parse(slot.start)).toBeGreaterThanOrEqual(now + 180 * 60_000 - 1000);
    expect(Date.parse(res.window!.from)).toBeGreaterThanOrEqual(now + 180 * 60_000 - 1000);

    const soon = new Date(Math.ceil((now + 60 * 60_000) / 1_800_000) * 1_800_000).toISOString();
    const patientId = await insertPatient(server, t);
    const refused = await server
      .api(t.token)
      .call('createAppointment', { body: { calendarId: cal.id, patientId, start: soon, origin: 'bot' } })
      .then(
        (data) => data,
        (error: unknown) => error,
      );
    expect(refused, JSON.stringify(refused)).toBeInstanceOf(ApiClientError);
    const error = refused as ApiClientError;
    expect(error.status).toBe(409);
    expect(error).toMatchObject({ code: 'no_availability', details: { reason: 'outside_availability' } });
    const alternatives = error.details?.alternatives as { start: string }[];
    expect(alternatives.length).toBeGreaterThan(0);
    for (const alt of alternatives) expect(Date.parse(alt.start)).toBeGreaterThanOrEqual(now + 180 * 60_000 - 1000);
  });

  it('working hours are those of the clinic’s timezone (New York)', async () => {
    const t = await server.factories.tenant({ timezone: 'America/New_York' });
    const cal = await makeCalendar(server, t, {
      slotMinutes: 60,
      workingHours: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ open: '09:00', close: '11:00' }]])),
    });
    const from = new Date(at(5, 0));
    const { data: res, response } = await availability(t, cal.id, from, new Date(from.getTime() + 86_400_000));
    expect(response.status).toBe(200);
    const local = res.data.map((s) =>
      new Intl.DateTimeFormat('en-GB', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit' }).format(new Date(s.start)),
    );
    expect(local.length).toBeGreaterThan(0);
    for (const time of local) expect(['09:00', '10:00']).toContain(time);
    // 09:00 in New York is 13:00 or 14:00 UTC (summer or winter time), never 09:00 UTC.
    for (const s of res.data) expect([13, 14, 15]).toContain(new Date(s.start).getUTCHours());
  });
});

describe('calendars on /v1', () => {
  it('shows calendars with the fields the back office sets, and a key limited to a facility sees only its rows', async () => {
    const own = await server.factories.tenant();
    const cal = await makeCalendar(server, own);
    const patch = await server.admin('PATCH', `/admin/v1/clinics/${own.clinicId}/calendars/${cal.id}`, {
      description: 'Pulizia dei denti',
      keywords: ['Pulizia', 'igiene', 'pulizia'],
      type: 'treatment',
      category: 'standard',
      bookableBy: ['voice'],
      takesNewPatients: false,
    });
    expect(patch.status, patch.text).toBe(200);
    const api = server.api(own.token);
    const list = await api.call('listCalendars');
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({
      id: cal.id,
      description: 'Pulizia dei denti',
      keywords: ['pulizia', 'igiene'],
      type: 'treatment',
      category: 'standard',
      bookableBy: ['voice'],
      takesNewPatients: false,
      slotMinutes: 30,
      doctorIds: cal.doctorIds,
      active: true,
    });
    expect((await api.call('getCalendar', { params: { path: { id: cal.id } } })).name).toBe(list.data[0]!.name);
    const bad = await server.admin('PATCH', `/admin/v1/clinics/${own.clinicId}/calendars/${cal.id}`, { bookableBy: ['fax'], type: 'spa', keywords: [''] });
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['bookableBy.0', 'keywords.0', 'type']);

    const limited = server.api((await server.factories.key(own.clinicId, ['clinic:read'], [own.facilityIds[1]])).token);
    expect((await limited.call('listCalendars')).data).toEqual([]);
    await expect(limited.call('getCalendar', { params: { path: { id: cal.id } } })).rejects.toMatchObject({ status: 404 });
  });
});

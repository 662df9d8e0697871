import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { at, insertPatient, makeCalendar } from './helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const window = (from: Date, to: Date) => `from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}`;

describe('calendar rules through the API', () => {
  it('minimum notice: no slot and no booking sooner than the notice', async () => {
    const t = await server.factories.tenant();
    const cal = await makeCalendar(server, t, { minNoticeMinutes: 180, slotMinutes: 30 });
    const now = Date.now();
    const res = await server.call('GET', `/v1/calendars/${cal.id}/availability?${window(new Date(now), new Date(now + 6 * 3_600_000))}`, { token: t.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    for (const slot of res.body.data) expect(Date.parse(slot.start)).toBeGreaterThanOrEqual(now + 180 * 60_000 - 1000);
    expect(Date.parse(res.body.window.from)).toBeGreaterThanOrEqual(now + 180 * 60_000 - 1000);

    const soon = new Date(Math.ceil((now + 60 * 60_000) / 1_800_000) * 1_800_000).toISOString();
    const patientId = await insertPatient(server, t);
    const refused = await server.call('POST', '/v1/appointments', { token: t.token, body: { calendarId: cal.id, patientId, start: soon, origin: 'bot' } });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'no_availability', details: { reason: 'outside_availability' } });
    expect(refused.body.error.details.alternatives.length).toBeGreaterThan(0);
    for (const alt of refused.body.error.details.alternatives) expect(Date.parse(alt.start)).toBeGreaterThanOrEqual(now + 180 * 60_000 - 1000);
  });

  it('working hours are those of the clinic’s timezone (New York)', async () => {
    const t = await server.factories.tenant({ timezone: 'America/New_York' });
    const cal = await makeCalendar(server, t, {
      slotMinutes: 60,
      workingHours: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ open: '09:00', close: '11:00' }]])),
    });
    const from = new Date(at(5, 0));
    const res = await server.call('GET', `/v1/calendars/${cal.id}/availability?${window(from, new Date(from.getTime() + 86_400_000))}`, { token: t.token });
    expect(res.status, res.text).toBe(200);
    const local = res.body.data.map((s: { start: string }) =>
      new Intl.DateTimeFormat('en-GB', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit' }).format(new Date(s.start)),
    );
    expect(local.length).toBeGreaterThan(0);
    for (const time of local) expect(['09:00', '10:00']).toContain(time);
    // 09:00 in New York is 13:00 or 14:00 UTC (summer or winter time), never 09:00 UTC.
    for (const s of res.body.data) expect([13, 14, 15]).toContain(new Date(s.start).getUTCHours());
  });
});

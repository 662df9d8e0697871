/** Meta and the Clinic lists (issue 15). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChair, createStaffProfile } from '../../../src/modules/clinics/service.js';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../../src/events/catalogue.js';
import type { OperationTypes } from '../../../packages/client/src/index.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { at, makeCalendar } from '../../helpers/seed.js';

let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());

describe('GET /v1/meta', () => {
  it('answers any valid key with no scope: the key, the clinic, every rate window, and costs budget', async () => {
    const key = await server.factories.key(tenant.clinicId, []);
    const api = server.api(key.token);
    const first = await api.callWithResponse('getMeta');
    expect(first.response.status).toBe(200);
    expect(first.data).toMatchObject({
      apiVersion: '1.0.0',
      key: { id: key.id, kind: 'live', scopes: [], facilityIds: null, agent: 'none', expiresAt: null },
      clinic: { id: tenant.clinicId, timezone: 'Europe/Rome', aiEnabled: true, planActive: true },
    });
    expect(Math.abs(Date.parse(first.data.serverTime) - Date.now())).toBeLessThan(5000);
    const windows = first.data.rateLimits.map((w) => `${w.scope}:${w.window}`);
    expect(windows.sort()).toEqual(['clinic:10s', 'clinic:day', 'key:10s', 'key:day']);
    const second = await api.callWithResponse('getMeta');
    const keyDay = (r: typeof first) => r.data.rateLimits.find((w) => w.scope === 'key' && w.window === 'day')!;
    expect(keyDay(second).remaining).toBe(keyDay(first).remaining - 1);
    // The header shows the tightest window, one of those listed.
    expect(second.data.rateLimits.map((w) => w.remaining)).toContain(Number(second.response.headers.get('x-ratelimit-remaining')));
    const noAccessLog = await server.ctx.db.selectFrom('access_log').select('id').where('api_key_id', '=', key.id).execute();
    expect(noAccessLog).toHaveLength(0);
  });

  it('lists the event catalogue with the scope of each type and whether this key may subscribe', async () => {
    const key = await server.factories.key(tenant.clinicId, ['webhooks:read', 'patients:read']);
    const res = await server.api(key.token).call('listEventTypes');
    expect(res.data).toHaveLength(SUBSCRIBABLE_EVENT_TYPES.length);
    expect(res.data.find((t) => t.type === 'patient.created')).toEqual({
      type: 'patient.created',
      scope: 'patients:read',
      subscribable: true,
    });
    expect(res.data.find((t) => t.type === 'lead.created')).toEqual({ type: 'lead.created', scope: 'leads:read', subscribable: false });
    const noWebhooks = await server.factories.key(tenant.clinicId, ['patients:read']);
    const none = await server.api(noWebhooks.token).call('listEventTypes');
    expect(none.data.every((t) => !t.subscribable)).toBe(true);
  });
});

describe('Clinic lists', () => {
  it('lists doctors with their calendars, filters them, and pages every list in a stable order with updatedSince', async () => {
    const own = await server.factories.tenant();
    const cal = await makeCalendar(server, own, { doctors: 2, chairs: 1 });
    const api = server.api(own.token);
    const doctors = await api.callWithResponse('listDoctors', { params: { query: { limit: 2 } } });
    expect(doctors.response.status).toBe(200);
    expect(doctors.data.data).toHaveLength(2);
    expect(doctors.data.nextCursor).not.toBeNull();
    const rest = await api.call('listDoctors', { params: { query: { limit: 2, cursor: doctors.data.nextCursor! } } });
    const all = [...doctors.data.data, ...rest.data];
    expect(all.map((d) => d.id).sort()).toEqual([own.doctorId, ...cal.doctorIds].sort());
    expect(rest.nextCursor).toBeNull();
    const inCal = await api.call('listDoctors', { params: { query: { calendarId: cal.id } } });
    expect(inCal.data.map((d) => d.id).sort()).toEqual([...cal.doctorIds].sort());
    expect(inCal.data[0]).toMatchObject({ calendarIds: [cal.id], active: true, facilityId: own.facilityIds[0] });
    expect(inCal.data[0]!.displayName).toMatch(/^Dott\. /);
    const one = await api.call('getDoctor', { params: { path: { id: cal.doctorIds[0]! } } });
    expect(one.calendarIds).toEqual([cal.id]);
    const inFacility2 = await api.call('listDoctors', { params: { query: { facilityId: own.facilityIds[1] } } });
    expect(inFacility2.data).toEqual([]);

    const later = new Date(Date.now() + 1000).toISOString();
    expect((await api.call('listDoctors', { params: { query: { updatedSince: later } } })).data).toEqual([]);
    const facilities = await api.call('listFacilities');
    expect(facilities.data.map((f) => f.id).sort()).toEqual([...own.facilityIds].sort());
    const chairs = await api.call('listChairs');
    expect(chairs.data.map((c) => c.id)).toEqual(cal.chairIds);
    const staff = await api.call('listStaffProfiles');
    expect(staff.data).toEqual([expect.objectContaining({ id: own.staffId, firstName: 'Marco', lastName: 'Verdi', active: true })]);
    // A cursor of one list is refused by another.
    await expect(api.call('listChairs', { params: { query: { cursor: doctors.data.nextCursor! } } })).rejects.toMatchObject({ status: 400 });
  });

  it('shows a doctor changed in the back office, display name included, to updatedSince', async () => {
    const own = await server.factories.tenant();
    const cal = await makeCalendar(server, own);
    const doctorId = cal.doctorIds[0]!;
    const before = new Date(Date.now() - 1).toISOString();
    const path = `/admin/v1/clinics/${own.clinicId}/doctors/${doctorId}`;
    const changed = await server.admin('PATCH', path, { displayName: 'Dott.ssa Laura Bianchi', specialty: 'Ortodonzia', facilityId: own.facilityIds[0] });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ id: doctorId, displayName: 'Dott.ssa Laura Bianchi', specialty: 'Ortodonzia', active: true });
    const seen = await server.api(own.token).call('listDoctors', { params: { query: { updatedSince: before } } });
    expect(seen.data.map((d) => [d.id, d.displayName])).toEqual([[doctorId, 'Dott.ssa Laura Bianchi']]);
    // null goes back to the default name; an unknown field, an empty body, another clinic's doctor are refused.
    const reset = await server.admin('PATCH', path, { displayName: null });
    expect(reset.body.displayName).toBe(`Dott. ${reset.body.firstName} ${reset.body.lastName}`);
    const bad = await server.admin('PATCH', path, { displayName: 'x'.repeat(151), nickname: 'Lau' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['displayName', 'nickname']);
    expect((await server.admin('PATCH', path, {})).status).toBe(400);
    const other = await server.factories.tenant();
    expect((await server.admin('PATCH', `/admin/v1/clinics/${other.clinicId}/doctors/${doctorId}`, { specialty: 'x' })).status).toBe(404);
    const foreignFacility = await server.admin('PATCH', path, { facilityId: other.facilityIds[0] });
    expect(foreignFacility.status).toBe(400);
    expect(foreignFacility.body.error.details.issues[0].path).toBe('facilityId');
  });

  it('refuses a facility created with a schedule out of order, naming the field', async () => {
    const own = await server.factories.tenant();
    const res = await server.admin('POST', `/admin/v1/clinics/${own.clinicId}/facilities`, {
      name: 'Sede Est',
      phone: 'not a phone',
      workingSchedule: { mon: [{ open: '14:00', close: '09:00' }] },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path.split('.')[0].split('/')[0]).sort()).toEqual(['phone', 'workingSchedule']);
  });

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

    await createChair(server.ctx.db, own.clinicId, { name: 'Poltrona Nord', facilityId: own.facilityIds[1] });
    await createStaffProfile(server.ctx.db, own.clinicId, { firstName: 'Nora', lastName: 'Nord', facilityId: own.facilityIds[1] });
    const limited = await server.factories.key(own.clinicId, ['clinic:read'], [own.facilityIds[1]]);
    const limitedApi = server.api(limited.token);
    expect((await limitedApi.call('listCalendars')).data, '/v1/calendars').toEqual([]);
    expect((await limitedApi.call('listDoctors')).data, '/v1/doctors').toEqual([]);
    expect((await limitedApi.call('listFacilities')).data.map((f) => f.id)).toEqual([own.facilityIds[1]]);
    expect((await limitedApi.call('listChairs')).data.map((c) => c.name)).toEqual(['Poltrona Nord']);
    expect((await limitedApi.call('listStaffProfiles')).data.map((c) => c.firstName)).toEqual(['Nora']);
    await expect(limitedApi.call('getCalendar', { params: { path: { id: cal.id } } })).rejects.toMatchObject({ status: 404 });
    await expect(limitedApi.call('getDoctor', { params: { path: { id: cal.doctorIds[0]! } } })).rejects.toMatchObject({ status: 404 });
  });
});

describe('availability an agent can say', () => {
  it('labels slots in Italian in the clinic’s zone, spreads them, and explains an empty answer', async () => {
    const own = await server.factories.tenant();
    const cal = await makeCalendar(server, own, {
      workingHours: {
        tue: [
          { open: '09:00', close: '12:00' },
          { open: '15:00', close: '17:00' },
        ],
        thu: [{ open: '09:00', close: '10:00' }],
      },
    });
    const api = server.api(own.token);
    type AvailabilityQuery = NonNullable<OperationTypes['getCalendarAvailability']['parameters']['query']>;
    const availability = (query?: AvailabilityQuery) => api.callWithResponse('getCalendarAvailability', { params: { path: { id: cal.id }, query } });
    const window = { from: at(1, 0), to: at(15, 0) };
    const { data: res, response } = await availability(window);
    expect(response.status).toBe(200);
    const first = res.data[0]!;
    expect(first.localTime).toBe('09:00');
    expect(first.label).toMatch(/^(martedì|giovedì) \d{1,2} [a-z]+ alle 9:00$/);
    expect(first.partOfDay).toBe('morning');
    expect(res).toMatchObject({ emptyReason: null, nextAvailable: null });

    const byDay = (await availability({ ...window, spread: 'day' })).data;
    const days = byDay.data.map((s) => s.localDate);
    expect(new Set(days).size).toBe(days.length);
    expect(days.length).toBeGreaterThanOrEqual(3);
    const byPart = (await availability({ ...window, spread: 'part_of_day', limit: 3 })).data;
    expect(byPart.data).toHaveLength(3);
    expect(byPart.data.some((s) => s.partOfDay === 'afternoon')).toBe(true);
    // One slot per part of a day, in time order; the limit cuts the spread list, not the slots before it.
    const parts = byPart.data.map((s) => `${s.localDate} ${s.partOfDay}`);
    expect(new Set(parts).size).toBe(3);
    const starts = byPart.data.map((s) => s.start);
    expect([...starts].sort()).toEqual(starts);
    // Without a spread, a limit answers the first free slots of the window, labelled.
    const all = (await availability(window)).data;
    const firstTwo = (await availability({ ...window, limit: 2 })).data;
    expect(firstTwo.data).toEqual(all.data.slice(0, 2));
    expect(firstTwo.data[1]!.label).toMatch(/ alle \d{1,2}:\d{2}$/);

    // A Monday-only window is closed; nextAvailable says when.
    const monday = new Date(Date.now() + 86_400_000);
    while (monday.getUTCDay() !== 1) monday.setUTCDate(monday.getUTCDate() + 1);
    monday.setUTCHours(6, 0, 0, 0);
    const closed = (await availability({ from: monday.toISOString(), to: new Date(monday.getTime() + 12 * 3_600_000).toISOString() })).data;
    expect(closed).toMatchObject({ data: [], emptyReason: 'closed' });
    expect(closed.window).not.toBeNull();
    expect(Date.parse(closed.nextAvailable!.start)).toBeGreaterThan(monday.getTime());
    const far = new Date(Date.now() + 90 * 86_400_000).toISOString();
    const beyond = (await availability({ from: far })).data;
    expect(beyond).toMatchObject({ data: [], window: null, emptyReason: 'beyond_horizon', nextAvailable: null });
    await server.admin('PATCH', `/admin/v1/clinics/${own.clinicId}/calendars/${cal.id}`, { active: false });
    const inactive = (await availability()).data;
    expect(inactive).toMatchObject({ data: [], window: null, emptyReason: 'calendar_inactive' });
  });

  it('says fully_booked when every slot of the window is taken', async () => {
    const own = await server.factories.tenant();
    const cal = await makeCalendar(server, own, { slotMinutes: 60 });
    const from = at(2, 9);
    const to = at(2, 10);
    const api = server.api(own.token);
    await api.call('createSlotHold', { params: { path: { id: cal.id } }, body: { start: from, holderRef: 'full' } });
    const res = await api.call('getCalendarAvailability', { params: { path: { id: cal.id }, query: { from, to } } });
    expect(res).toMatchObject({ data: [], emptyReason: 'fully_booked' });
    expect(res.nextAvailable!.start).toBe(to);
  });
});

/** Meta and the Clinic lists (issue 15). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChair, createStaffProfile } from '../../src/modules/clinics/service.js';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../src/events/catalogue.js';
import type { Tenant } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { at, makeCalendar } from '../agenda/helpers.js';

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
    const first = await server.call('GET', '/v1/meta', { token: key.token });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({
      apiVersion: '1.0.0',
      key: { id: key.id, kind: 'live', scopes: [], facilityIds: null, agent: 'none', expiresAt: null },
      clinic: { id: tenant.clinicId, timezone: 'Europe/Rome', aiEnabled: true, planActive: true },
    });
    expect(Math.abs(Date.parse(first.body.serverTime) - Date.now())).toBeLessThan(5000);
    const windows = first.body.rateLimits.map((w: { scope: string; window: string }) => `${w.scope}:${w.window}`);
    expect(windows.sort()).toEqual(['clinic:10s', 'clinic:day', 'key:10s', 'key:day']);
    const second = await server.call('GET', '/v1/meta', { token: key.token });
    const keyDay = (r: typeof first) => r.body.rateLimits.find((w: { scope: string; window: string }) => w.scope === 'key' && w.window === 'day');
    expect(keyDay(second).remaining).toBe(keyDay(first).remaining - 1);
    // The header shows the tightest window, one of those listed.
    expect(second.body.rateLimits.map((w: { remaining: number }) => w.remaining)).toContain(Number(second.headers.get('x-ratelimit-remaining')));
    const noAccessLog = await server.ctx.db.selectFrom('access_log').select('id').where('api_key_id', '=', key.id).execute();
    expect(noAccessLog).toHaveLength(0);
  });

  it('lists the event catalogue with the scope of each type and whether this key may subscribe', async () => {
    const key = await server.factories.key(tenant.clinicId, ['webhooks:read', 'patients:read']);
    const res = await server.call('GET', '/v1/meta/event-types', { token: key.token });
    expect(res.body.data).toHaveLength(SUBSCRIBABLE_EVENT_TYPES.length);
    expect(res.body.data.find((t: { type: string }) => t.type === 'patient.created')).toEqual({
      type: 'patient.created',
      scope: 'patients:read',
      subscribable: true,
    });
    expect(res.body.data.find((t: { type: string }) => t.type === 'lead.created')).toEqual({ type: 'lead.created', scope: 'leads:read', subscribable: false });
    const noWebhooks = await server.factories.key(tenant.clinicId, ['patients:read']);
    const none = await server.call('GET', '/v1/meta/event-types', { token: noWebhooks.token });
    expect(none.body.data.every((t: { subscribable: boolean }) => !t.subscribable)).toBe(true);
  });
});

describe('Clinic lists', () => {
  it('lists doctors with their calendars, filters them, and pages every list in a stable order with updatedSince', async () => {
    const own = await server.factories.tenant();
    const cal = await makeCalendar(server, own, { doctors: 2, chairs: 1 });
    const doctors = await server.call('GET', '/v1/doctors?limit=2', { token: own.token });
    expect(doctors.status, doctors.text).toBe(200);
    expect(doctors.body.data).toHaveLength(2);
    expect(doctors.body.nextCursor).not.toBeNull();
    const rest = await server.call('GET', `/v1/doctors?limit=2&cursor=${encodeURIComponent(doctors.body.nextCursor)}`, { token: own.token });
    const all = [...doctors.body.data, ...rest.body.data];
    expect(all.map((d: { id: string }) => d.id).sort()).toEqual([own.doctorId, ...cal.doctorIds].sort());
    expect(rest.body.nextCursor).toBeNull();
    const inCal = await server.call('GET', `/v1/doctors?calendarId=${cal.id}`, { token: own.token });
    expect(inCal.body.data.map((d: { id: string }) => d.id).sort()).toEqual([...cal.doctorIds].sort());
    expect(inCal.body.data[0]).toMatchObject({ calendarIds: [cal.id], active: true, facilityId: own.facilityIds[0] });
    expect(inCal.body.data[0].displayName).toMatch(/^Dott\. /);
    const one = await server.call('GET', `/v1/doctors/${cal.doctorIds[0]}`, { token: own.token });
    expect(one.body.calendarIds).toEqual([cal.id]);
    const inFacility2 = await server.call('GET', `/v1/doctors?facilityId=${own.facilityIds[1]}`, { token: own.token });
    expect(inFacility2.body.data).toEqual([]);

    const later = new Date(Date.now() + 1000).toISOString();
    expect((await server.call('GET', `/v1/doctors?updatedSince=${encodeURIComponent(later)}`, { token: own.token })).body.data).toEqual([]);
    const facilities = await server.call('GET', '/v1/facilities', { token: own.token });
    expect(facilities.body.data.map((f: { id: string }) => f.id).sort()).toEqual([...own.facilityIds].sort());
    const chairs = await server.call('GET', '/v1/chairs', { token: own.token });
    expect(chairs.body.data.map((c: { id: string }) => c.id)).toEqual(cal.chairIds);
    const staff = await server.call('GET', '/v1/staff-profiles', { token: own.token });
    expect(staff.body.data).toEqual([expect.objectContaining({ id: own.staffId, firstName: 'Marco', lastName: 'Verdi', active: true })]);
    // A cursor of one list is refused by another.
    const wrong = await server.call('GET', `/v1/chairs?cursor=${encodeURIComponent(doctors.body.nextCursor)}`, { token: own.token });
    expect(wrong.status).toBe(400);
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
    const seen = await server.call('GET', `/v1/doctors?updatedSince=${encodeURIComponent(before)}`, { token: own.token });
    expect(seen.body.data.map((d: { id: string; displayName: string }) => [d.id, d.displayName])).toEqual([[doctorId, 'Dott.ssa Laura Bianchi']]);
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
    const list = await server.call('GET', '/v1/calendars', { token: own.token });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({
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
    expect((await server.call('GET', `/v1/calendars/${cal.id}`, { token: own.token })).body.name).toBe(list.body.data[0].name);
    const bad = await server.admin('PATCH', `/admin/v1/clinics/${own.clinicId}/calendars/${cal.id}`, { bookableBy: ['fax'], type: 'spa', keywords: [''] });
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['bookableBy.0', 'keywords.0', 'type']);

    await createChair(server.ctx.db, own.clinicId, { name: 'Poltrona Nord', facilityId: own.facilityIds[1] });
    await createStaffProfile(server.ctx.db, own.clinicId, { firstName: 'Nora', lastName: 'Nord', facilityId: own.facilityIds[1] });
    const limited = await server.factories.key(own.clinicId, ['clinic:read'], [own.facilityIds[1]]);
    for (const path of ['/v1/calendars', '/v1/doctors']) expect((await server.call('GET', path, { token: limited.token })).body.data, path).toEqual([]);
    expect((await server.call('GET', '/v1/facilities', { token: limited.token })).body.data.map((f: { id: string }) => f.id)).toEqual([own.facilityIds[1]]);
    expect((await server.call('GET', '/v1/chairs', { token: limited.token })).body.data.map((c: { name: string }) => c.name)).toEqual(['Poltrona Nord']);
    expect((await server.call('GET', '/v1/staff-profiles', { token: limited.token })).body.data.map((c: { firstName: string }) => c.firstName)).toEqual([
      'Nora',
    ]);
    expect((await server.call('GET', `/v1/calendars/${cal.id}`, { token: limited.token })).status).toBe(404);
    expect((await server.call('GET', `/v1/doctors/${cal.doctorIds[0]}`, { token: limited.token })).status).toBe(404);
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
    const res = await server.call('GET', `/v1/calendars/${cal.id}/availability?from=${encodeURIComponent(at(1, 0))}&to=${encodeURIComponent(at(15, 0))}`, {
      token: own.token,
    });
    expect(res.status, res.text).toBe(200);
    const first = res.body.data[0];
    expect(first.localTime).toBe('09:00');
    expect(first.label).toMatch(/^(martedì|giovedì) \d{1,2} [a-z]+ alle 9:00$/);
    expect(first.partOfDay).toBe('morning');
    expect(res.body).toMatchObject({ emptyReason: null, nextAvailable: null });

    const byDay = await server.call(
      'GET',
      `/v1/calendars/${cal.id}/availability?from=${encodeURIComponent(at(1, 0))}&to=${encodeURIComponent(at(15, 0))}&spread=day`,
      { token: own.token },
    );
    const days = byDay.body.data.map((s: { localDate: string }) => s.localDate);
    expect(new Set(days).size).toBe(days.length);
    expect(days.length).toBeGreaterThanOrEqual(3);
    const byPart = await server.call(
      'GET',
      `/v1/calendars/${cal.id}/availability?from=${encodeURIComponent(at(1, 0))}&to=${encodeURIComponent(at(15, 0))}&spread=part_of_day&limit=3`,
      { token: own.token },
    );
    expect(byPart.body.data).toHaveLength(3);
    expect(byPart.body.data.some((s: { partOfDay: string }) => s.partOfDay === 'afternoon')).toBe(true);
    // One slot per part of a day, in time order; the limit cuts the spread list, not the slots before it.
    const parts = byPart.body.data.map((s: { localDate: string; partOfDay: string }) => `${s.localDate} ${s.partOfDay}`);
    expect(new Set(parts).size).toBe(3);
    const starts = byPart.body.data.map((s: { start: string }) => s.start);
    expect([...starts].sort()).toEqual(starts);
    // Without a spread, a limit answers the first free slots of the window, labelled.
    const path = `/v1/calendars/${cal.id}/availability?from=${encodeURIComponent(at(1, 0))}&to=${encodeURIComponent(at(15, 0))}`;
    const all = await server.call('GET', path, { token: own.token });
    const firstTwo = await server.call('GET', `${path}&limit=2`, { token: own.token });
    expect(firstTwo.body.data).toEqual(all.body.data.slice(0, 2));
    expect(firstTwo.body.data[1].label).toMatch(/ alle \d{1,2}:\d{2}$/);

    // A Monday-only window is closed; nextAvailable says when.
    const monday = new Date(Date.now() + 86_400_000);
    while (monday.getUTCDay() !== 1) monday.setUTCDate(monday.getUTCDate() + 1);
    monday.setUTCHours(6, 0, 0, 0);
    const closed = await server.call(
      'GET',
      `/v1/calendars/${cal.id}/availability?from=${monday.toISOString()}&to=${new Date(monday.getTime() + 12 * 3_600_000).toISOString()}`,
      { token: own.token },
    );
    expect(closed.body).toMatchObject({ data: [], emptyReason: 'closed' });
    expect(closed.body.window).not.toBeNull();
    expect(Date.parse(closed.body.nextAvailable.start)).toBeGreaterThan(monday.getTime());
    const far = new Date(Date.now() + 90 * 86_400_000).toISOString();
    const beyond = await server.call('GET', `/v1/calendars/${cal.id}/availability?from=${far}`, { token: own.token });
    expect(beyond.body).toMatchObject({ data: [], window: null, emptyReason: 'beyond_horizon', nextAvailable: null });
    await server.admin('PATCH', `/admin/v1/clinics/${own.clinicId}/calendars/${cal.id}`, { active: false });
    const inactive = await server.call('GET', `/v1/calendars/${cal.id}/availability`, { token: own.token });
    expect(inactive.body).toMatchObject({ data: [], window: null, emptyReason: 'calendar_inactive' });
  });

  it('says fully_booked when every slot of the window is taken', async () => {
    const own = await server.factories.tenant();
    const cal = await makeCalendar(server, own, { slotMinutes: 60 });
    const from = at(2, 9);
    const to = at(2, 10);
    await server.call('POST', `/v1/calendars/${cal.id}/holds`, { token: own.token, body: { start: from, holderRef: 'full' } });
    const res = await server.call('GET', `/v1/calendars/${cal.id}/availability?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, {
      token: own.token,
    });
    expect(res.body).toMatchObject({ data: [], emptyReason: 'fully_booked' });
    expect(res.body.nextAvailable.start).toBe(to);
  });
});

/** The Clinic lists: doctors, chairs, staff, facilities and calendars on /v1 (issue 15). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChair } from '../../../src/modules/chairs/service.js';
import { createStaffProfile } from '../../../src/modules/staff/service.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { makeCalendar } from '../../helpers/seed.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
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

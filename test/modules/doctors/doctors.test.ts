/** Doctors: the /v1 list and read (with their calendars), and the back office's change of a doctor. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { makeCalendar } from '../../helpers/seed.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
describe('doctors', () => {
  it('lists doctors with their calendars, filters them, and pages in a stable order with updatedSince', async () => {
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

  it('a key limited to a facility sees only the doctors of that facility', async () => {
    const own = await server.factories.tenant();
    const cal = await makeCalendar(server, own);
    const limited = server.api((await server.factories.key(own.clinicId, ['clinic:read'], [own.facilityIds[1]])).token);
    expect((await limited.call('listDoctors')).data).toEqual([]);
    await expect(limited.call('getDoctor', { params: { path: { id: cal.doctorIds[0]! } } })).rejects.toMatchObject({ status: 404 });
  });
});

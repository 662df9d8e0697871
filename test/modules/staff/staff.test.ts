/** Staff profiles (task assignees, lead owners): the back office creates and lists them; /v1 pages the ones a key sees. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('staff profiles', () => {
  it('are created for the clinic or one of its facilities and listed oldest first by the back office', async () => {
    const own = await server.factories.tenant();
    const base = `/admin/v1/clinics/${own.clinicId}/staff-profiles`;
    const res = await server.admin('POST', base, {
      firstName: 'Anna',
      lastName: 'De Luca',
      email: 'anna@example.it',
      role: 'reception',
      facilityId: own.facilityIds[1],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ firstName: 'Anna', lastName: 'De Luca', email: 'anna@example.it', role: 'reception', facilityId: own.facilityIds[1] });
    const plain = await server.admin('POST', base, { firstName: 'Luca', lastName: 'Neri' });
    expect(plain.body).toMatchObject({ facilityId: null, email: null, role: 'staff' });
    // The tenant factory's Marco Verdi first.
    expect((await server.admin('GET', base)).body.data.map((s: { lastName: string }) => s.lastName)).toEqual(['Verdi', 'De Luca', 'Neri']);

    const bad = await server.admin('POST', base, { firstName: '', lastName: 'X', email: 'not-an-email', role: '' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['email', 'firstName', 'role']);
    const other = await server.factories.tenant();
    const foreign = await server.admin('POST', base, { firstName: 'X', lastName: 'Y', facilityId: other.facilityIds[0] });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details.issues).toEqual([expect.objectContaining({ path: 'facilityId' })]);
    expect((await server.admin('GET', base)).body.data).toHaveLength(3);
    expect((await server.admin('GET', `/admin/v1/clinics/${own.facilityIds[0]}/staff-profiles`)).status).toBe(404);
  });

  it('pages on /v1 by last change, and a facility-limited key sees only the profiles of its facility', async () => {
    const own = await server.factories.tenant();
    await server.admin('POST', `/admin/v1/clinics/${own.clinicId}/staff-profiles`, { firstName: 'Nora', lastName: 'Nord', facilityId: own.facilityIds[1] });
    const api = server.api(own.token);
    const first = await api.call('listStaffProfiles', { params: { query: { limit: 1 } } });
    expect(first.data).toEqual([
      expect.objectContaining({ id: own.staffId, firstName: 'Marco', lastName: 'Verdi', role: 'staff', active: true, facilityId: null }),
    ]);
    const rest = await api.call('listStaffProfiles', { params: { query: { limit: 1, cursor: first.nextCursor! } } });
    expect(rest.data.map((s) => s.firstName)).toEqual(['Nora']);
    expect(rest.nextCursor).toBeNull();

    const limited = server.api((await server.factories.key(own.clinicId, ['clinic:read'], [own.facilityIds[1]])).token);
    expect((await limited.call('listStaffProfiles')).data.map((s) => s.firstName)).toEqual(['Nora']);
    const stranger = await server.factories.tenant();
    expect((await server.api(stranger.token).call('listStaffProfiles')).data.map((s) => s.firstName)).toEqual(['Marco']);
  });
});

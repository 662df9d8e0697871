/** Chairs (a facility's dental units): the back office creates and lists them; /v1 pages the ones a key sees. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { makeCalendar } from '../../helpers/seed.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('chairs', () => {
  it('are created in a facility of the clinic and listed oldest first by the back office', async () => {
    const own = await server.factories.tenant();
    const base = `/admin/v1/clinics/${own.clinicId}/chairs`;
    const first = await server.admin('POST', base, { name: 'Poltrona 1', facilityId: own.facilityIds[0] });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toEqual({ id: expect.any(String), facilityId: own.facilityIds[0], name: 'Poltrona 1' });
    const second = await server.admin('POST', base, { name: 'Poltrona 2', facilityId: own.facilityIds[1] });
    expect(second.status).toBe(201);
    expect((await server.admin('GET', base)).body.data.map((c: { name: string }) => c.name)).toEqual(['Poltrona 1', 'Poltrona 2']);

    // Every wrong field named; a facility of another clinic is a wrong field; an unknown clinic is 404.
    const bad = await server.admin('POST', base, { name: '', facilityId: 'nope', colour: 'red' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['colour', 'facilityId', 'name']);
    const other = await server.factories.tenant();
    const foreign = await server.admin('POST', base, { name: 'Poltrona X', facilityId: other.facilityIds[0] });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details.issues).toEqual([expect.objectContaining({ path: 'facilityId' })]);
    expect((await server.admin('GET', base)).body.data).toHaveLength(2);
    expect((await server.admin('POST', `/admin/v1/clinics/${other.doctorId}/chairs`, { name: 'P', facilityId: own.facilityIds[0] })).status).toBe(404);
    expect((await server.admin('GET', `/admin/v1/clinics/${other.doctorId}/chairs`)).status).toBe(404);
  });

  it('pages on /v1 by last change, refuses a cursor of another list, and shows a facility-limited key only its chairs', async () => {
    const own = await server.factories.tenant();
    const cal = await makeCalendar(server, own, { chairs: 3 });
    const nord = await server.admin('POST', `/admin/v1/clinics/${own.clinicId}/chairs`, { name: 'Poltrona Nord', facilityId: own.facilityIds[1] });
    const api = server.api(own.token);
    const page = await api.call('listChairs', { params: { query: { limit: 2 } } });
    expect(page.data).toHaveLength(2);
    const rest = await api.call('listChairs', { params: { query: { limit: 2, cursor: page.nextCursor! } } });
    expect(rest.nextCursor).toBeNull();
    const all = [...page.data, ...rest.data];
    // Each chair once, in one order: the three of the calendar's facility and the one of the second facility.
    expect(all.map((c) => c.id).sort()).toEqual([...cal.chairIds, nord.body.id].sort());
    expect(all[0]).toMatchObject({ active: true, facilityId: expect.any(String), updatedAt: expect.any(String) });
    const doctors = await api.call('listDoctors', { params: { query: { limit: 1 } } });
    await expect(api.call('listChairs', { params: { query: { cursor: doctors.nextCursor! } } })).rejects.toMatchObject({ status: 400 });
    expect((await api.call('listChairs', { params: { query: { updatedSince: new Date(Date.now() + 1000).toISOString() } } })).data).toEqual([]);

    const limited = server.api((await server.factories.key(own.clinicId, ['clinic:read'], [own.facilityIds[1]])).token);
    expect((await limited.call('listChairs')).data.map((c) => c.name)).toEqual(['Poltrona Nord']);
    const stranger = await server.factories.tenant();
    expect((await server.api(stranger.token).call('listChairs')).data).toEqual([]);
  });
});

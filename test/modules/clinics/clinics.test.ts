/**
 * The tenants: organizations and clinics, as the back office creates, reads and changes them,
 * and what their switches do to every key (plan, suspension).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setOrganizationSuspended, updateClinic } from '../../../src/modules/clinics/service.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const readFacility = (token: string, id: string) => server.api(token).callWithResponse('getFacility', { params: { path: { id } } });

describe('clinics', () => {
  it('creates a clinic, facilities, doctors, chairs, staff and keys, shown once', async () => {
    const clinic = await server.admin('POST', '/admin/v1/clinics', { name: 'Studio Nuovo', patientLimit: 10, mode: 'test' });
    expect(clinic.status).toBe(201);
    expect(clinic.body).toMatchObject({ name: 'Studio Nuovo', patientLimit: 10, mode: 'test', planActive: true, aiEnabled: true, suspended: false });
    const id = clinic.body.id;
    const facility = await server.admin('POST', `/admin/v1/clinics/${id}/facilities`, { name: 'Sede', city: 'Roma' });
    expect(facility.status).toBe(201);
    expect((await server.admin('POST', `/admin/v1/clinics/${id}/doctors`, { firstName: 'A', lastName: 'B', facilityId: facility.body.id })).status).toBe(201);
    expect((await server.admin('POST', `/admin/v1/clinics/${id}/chairs`, { name: 'Poltrona 1', facilityId: facility.body.id })).status).toBe(201);
    expect((await server.admin('POST', `/admin/v1/clinics/${id}/staff-profiles`, { firstName: 'C', lastName: 'D' })).status).toBe(201);
    const key = await server.admin('POST', `/admin/v1/clinics/${id}/api-keys`, { name: 'bot', scopes: ['clinic:read'], facilityIds: [facility.body.id] });
    expect(key.status).toBe(201);
    expect(key.body.token).toMatch(/^dcm_test_/);
    const list = await server.admin('GET', `/admin/v1/clinics/${id}/api-keys`);
    expect(list.body.data).toHaveLength(1);
    expect(JSON.stringify(list.body)).not.toContain(key.body.token);
    expect((await readFacility(key.body.token, facility.body.id)).response.status).toBe(200);
  });

  it('puts a clinic in the organization named, reads and changes it, and names every wrong field', async () => {
    const org = await server.admin('POST', '/admin/v1/organizations', { name: 'Gruppo Sorriso' });
    expect(org.status).toBe(201);
    expect(org.body).toMatchObject({ name: 'Gruppo Sorriso', suspended: false, suspendedAt: null });
    const clinic = await server.admin('POST', '/admin/v1/clinics', { name: 'Sorriso Nord', organizationId: org.body.id, timezone: 'Europe/Zurich' });
    expect(clinic.status, clinic.text).toBe(201);
    expect(clinic.body).toMatchObject({
      organizationId: org.body.id,
      mode: 'live',
      timezone: 'Europe/Zurich',
      quotesRequireSignature: false,
      patientLimit: null,
    });
    expect((await server.admin('GET', `/admin/v1/clinics/${clinic.body.id}`)).body).toEqual(clinic.body);
    expect((await server.admin('GET', '/admin/v1/clinics')).body.data.map((c: { id: string }) => c.id)).toContain(clinic.body.id);

    const changed = await server.admin('PATCH', `/admin/v1/clinics/${clinic.body.id}`, {
      name: 'Sorriso Nord-Est',
      aiEnabled: false,
      quotesRequireSignature: true,
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: 'Sorriso Nord-Est', aiEnabled: false, quotesRequireSignature: true, timezone: 'Europe/Zurich' });

    const unknownOrg = await server.admin('POST', '/admin/v1/clinics', { name: 'X', organizationId: clinic.body.id });
    expect(unknownOrg.status).toBe(400);
    expect(unknownOrg.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['organizationId']);
    const bad = await server.admin('POST', '/admin/v1/clinics', { name: '', mode: 'demo', patientLimit: -1, timezone: 'Mars/Olympus' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['mode', 'name', 'patientLimit', 'timezone']);
    // A time zone no calendar could compute in is refused by itself too, and on a change.
    const zone = await server.admin('POST', '/admin/v1/clinics', { name: 'Studio Lunare', timezone: 'Mars/Olympus' });
    expect(zone.status).toBe(400);
    expect(zone.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['timezone']);
    const zoneChange = await server.admin('PATCH', `/admin/v1/clinics/${clinic.body.id}`, { timezone: 'Europe/Atlantis' });
    expect(zoneChange.status).toBe(400);
    expect((await server.admin('GET', `/admin/v1/clinics/${clinic.body.id}`)).body.timezone).toBe('Europe/Zurich');

    expect((await server.admin('GET', `/admin/v1/clinics/${org.body.id}`)).status).toBe(404);
    expect((await server.admin('PATCH', `/admin/v1/clinics/${org.body.id}`, { name: 'Y' })).status).toBe(404);
    expect((await server.admin('PATCH', `/admin/v1/organizations/${clinic.body.id}`, { suspended: true })).status).toBe(404);
  });

  it('answers 403 plan_required when the Clinic plan is off, and works again when on', async () => {
    const t = await server.factories.tenant();
    await updateClinic(server.ctx.db, t.clinicId, { planActive: false });
    server.ctx.authenticator.invalidate();
    const res = await server.call('GET', `/v1/facilities/${t.facilityIds[0]}`, { token: t.token });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('plan_required');
    const on = await server.admin('PATCH', `/admin/v1/clinics/${t.clinicId}`, { planActive: true });
    expect(on.status).toBe(200);
    expect((await readFacility(t.token, t.facilityIds[0])).response.status).toBe(200);
  });

  it('answers 403 organization_suspended to every key of a suspended organization', async () => {
    const t = await server.factories.tenant();
    const res0 = await server.admin('PATCH', `/admin/v1/organizations/${t.organizationId}`, { suspended: true });
    expect(res0.status).toBe(200);
    const res = await server.call('GET', `/v1/facilities/${t.facilityIds[0]}`, { token: t.token });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('organization_suspended');
    await setOrganizationSuspended(server.ctx.db, t.organizationId, false);
    server.ctx.authenticator.invalidate();
    expect((await readFacility(t.token, t.facilityIds[0])).response.status).toBe(200);
  });
});

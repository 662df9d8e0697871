import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../../src/modules/auth/tokens.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());

const facilityPath = () => `/v1/facilities/${tenant.facilityIds[0]}`;
/**
 * A typed read (the project's client, generated OpenAPI types) for the success checks; the
 * refusals stay raw calls: what this file tests is the wire (status and error code of each key).
 */
const readFacility = (token: string, id: string = tenant.facilityIds[0]) => server.api(token).callWithResponse('getFacility', { params: { path: { id } } });

describe('authentication (spec 5)', () => {
  it('accepts a live key and tells the kinds apart by prefix', async () => {
    expect(tenant.token).toMatch(/^dcm_live_[A-Za-z0-9_-]{43}$/);
    const res = await readFacility(tenant.token);
    expect(res.response.status).toBe(200);
    const test = await server.factories.tenant({ mode: 'test' });
    expect(test.token).toMatch(/^dcm_test_/);
    expect((await readFacility(test.token, test.facilityIds[0])).response.status).toBe(200);
  });

  it('stores only a hash of the token', async () => {
    const rows = await server.ctx.db.selectFrom('api_keys').selectAll().where('clinic_id', '=', tenant.clinicId).execute();
    const row = rows.find((r) => r.id === tenant.keyId)!;
    expect(row.token_hash).toBe(hashToken(tenant.token));
    expect(JSON.stringify(rows)).not.toContain(tenant.token);
  });

  it('answers 401 api_key_revoked to a revoked key and to an expired one', async () => {
    const revoked = await server.factories.revokedKey(tenant.clinicId);
    const res = await server.call('GET', facilityPath(), { token: revoked });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('api_key_revoked');

    const soon = await server.factories.key(tenant.clinicId, ['clinic:read'], null, new Date(Date.now() + 1500));
    expect((await readFacility(soon.token)).response.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1600));
    const expired = await server.call('GET', facilityPath(), { token: soon.token });
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('api_key_revoked');
  });

  it('revocation through the back office takes effect on the next request', async () => {
    const key = await server.factories.key(tenant.clinicId, ['clinic:read']);
    expect((await readFacility(key.token)).response.status).toBe(200);
    const revoke = await server.admin('POST', `/admin/v1/api-keys/${key.id}/revoke`);
    expect(revoke.status).toBe(200);
    expect(revoke.body.revokedAt).toBeTruthy();
    expect((await server.call('GET', facilityPath(), { token: key.token })).body.error.code).toBe('api_key_revoked');
  });

  it('a replaced key is revoked and its replacement works', async () => {
    const key = await server.factories.key(tenant.clinicId, ['clinic:read']);
    const replaced = await server.admin('POST', `/admin/v1/api-keys/${key.id}/replace`);
    expect(replaced.status).toBe(201);
    expect(replaced.body.scopes).toEqual(['clinic:read']);
    expect((await server.call('GET', facilityPath(), { token: key.token })).body.error.code).toBe('api_key_revoked');
    expect((await readFacility(replaced.body.token)).response.status).toBe(200);
  });

  it('a key limited to facilities sees only those; others are 404, never 403', async () => {
    const limited = await server.factories.key(tenant.clinicId, ['clinic:read'], [tenant.facilityIds[0]]);
    expect((await readFacility(limited.token)).response.status).toBe(200);
    const other = await server.call('GET', `/v1/facilities/${tenant.facilityIds[1]}`, { token: limited.token });
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('not_found');
  });

  it('ids are accepted in any letter case', async () => {
    const res = await readFacility(tenant.token, tenant.facilityIds[0].toUpperCase());
    expect(res.response.status).toBe(200);
    expect(res.data.id).toBe(tenant.facilityIds[0]);
    const bad = await server.call('GET', '/v1/facilities/not-a-uuid', { token: tenant.token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toMatchObject({ in: 'path', issues: [{ path: 'id' }] });
  });
});

describe('back-office API', () => {
  it('refuses requests without the admin token', async () => {
    expect((await server.call('GET', '/admin/v1/clinics')).body.error.code).toBe('unauthenticated');
    expect((await server.call('GET', '/admin/v1/clinics', { token: tenant.token })).body.error.code).toBe('api_key_invalid');
  });

  it('names every wrong field of a key request, including a facility of another clinic', async () => {
    const other = await server.factories.tenant();
    const res = await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/api-keys`, {
      name: 'x',
      scopes: ['clinic:read'],
      facilityIds: [other.facilityIds[0]],
      expiresAt: '2020-01-01T00:00:00Z',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['expiresAt', 'facilityIds.0']);
    const bad = await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/api-keys`, { name: '', scopes: ['nope'], extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['extra', 'name', 'scopes.0']);
  });
});

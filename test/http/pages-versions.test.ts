import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStaffProfile } from '../../src/modules/staff/service.js';
import type { Tenant } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { mechanismRoutes } from './mechanisms-routes.js';

let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer({ appOptions: { extraRoutes: mechanismRoutes } });
  tenant = await server.factories.tenant();
  for (let i = 0; i < 24; i++) await createStaffProfile(server.ctx.db, tenant.clinicId, { firstName: `P${i}`, lastName: 'X' });
});
afterAll(() => server.close());

async function walk(limit: number, between?: (page: number) => Promise<void>): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const qs: string = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res: { status: number; text: string; body: any } = await server.call('GET', `/v1/test-profiles${qs}`, { token: tenant.token });
    expect(res.status, res.text).toBe(200);
    ids.push(...res.body.data.map((r: { id: string }) => r.id));
    cursor = res.body.nextCursor;
    if (!cursor) break;
    expect(cursor.length).toBeLessThanOrEqual(500);
    await between?.(page);
  }
  return ids;
}

describe('cursor pagination', () => {
  it('returns each row exactly once across pages', async () => {
    const ids = await walk(7);
    expect(ids).toHaveLength(25); // 24 + the tenant's staff profile
    expect(new Set(ids).size).toBe(25);
  });

  it('still returns each existing row once when new rows arrive during the walk', async () => {
    const before = await walk(50);
    const ids = await walk(5, async (page) => {
      if (page < 2) await createStaffProfile(server.ctx.db, tenant.clinicId, { firstName: `New${page}`, lastName: 'X' });
    });
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of before) expect(ids).toContain(id);
  });

  it('refuses a tampered cursor and a cursor of another list or clinic with 400', async () => {
    const first = await server.call('GET', '/v1/test-profiles?limit=2', { token: tenant.token });
    const cursor: string = first.body.nextCursor;
    const [payload, sig] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify(['2000-01-01T00:00:00.000Z', '00000000-0000-0000-0000-000000000000'])).toString('base64url');
    for (const bad of [`${forged}.${sig}`, `${payload}.${sig!.slice(0, -2)}aa`, 'garbage', `${payload}`]) {
      const res = await server.call('GET', `/v1/test-profiles?cursor=${encodeURIComponent(bad)}`, { token: tenant.token });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toMatchObject({ in: 'query', issues: [{ path: 'cursor' }] });
    }
    const otherFilter = await server.call('GET', `/v1/test-profiles?role=staff&cursor=${encodeURIComponent(cursor)}`, { token: tenant.token });
    expect(otherFilter.status).toBe(400);
    const other = await server.factories.tenant();
    const otherClinic = await server.call('GET', `/v1/test-profiles?cursor=${encodeURIComponent(cursor)}`, { token: other.token });
    expect(otherClinic.status).toBe(400);
    const long = await server.call('GET', `/v1/test-profiles?cursor=${'a'.repeat(501)}`, { token: tenant.token });
    expect(long.status).toBe(400);
  });

  it('validates limit and refuses unknown query parameters', async () => {
    for (const qs of ['limit=0', 'limit=201', 'limit=abc', 'limit=1.5', 'nope=1']) {
      const res = await server.call('GET', `/v1/test-profiles?${qs}`, { token: tenant.token });
      expect(res.status, qs).toBe(400);
      expect(res.body.error.details.in).toBe('query');
    }
  });
});

describe('ETag and If-Match', () => {
  it('a modification with a stale If-Match gets 409 version_mismatch and changes nothing', async () => {
    // The contract's read is typed (the project's client); the test route /v1/test-facilities is not in the contract: raw.
    const getFacility = () => server.api(tenant.token).callWithResponse('getFacility', { params: { path: { id: tenant.facilityIds[1] } } });
    const read = await getFacility();
    const etag = read.response.headers.get('etag')!;
    expect(etag).toMatch(/^"\d+"$/);
    const first = await server.call('PATCH', `/v1/test-facilities/${tenant.facilityIds[1]}`, {
      token: tenant.token,
      body: { name: 'Uno' },
      headers: { 'if-match': etag },
    });
    expect(first.status).toBe(200);
    expect(first.headers.get('etag')).not.toBe(etag);
    const stale = await server.call('PATCH', `/v1/test-facilities/${tenant.facilityIds[1]}`, {
      token: tenant.token,
      body: { name: 'Due' },
      headers: { 'if-match': etag },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'conflict', details: { reason: 'version_mismatch' } });
    const garbage = await server.call('PATCH', `/v1/test-facilities/${tenant.facilityIds[1]}`, {
      token: tenant.token,
      body: { name: 'Tre' },
      headers: { 'if-match': 'nonsense' },
    });
    expect(garbage.status).toBe(409);
    const now = await getFacility();
    expect(now.data.name).toBe('Uno');
    expect(now.response.headers.get('etag')).toBe(first.headers.get('etag'));
  });
});

describe('access log', () => {
  it('is readable through the back office, newest first, by resource', async () => {
    // An older entry, written as the writer would, a minute back.
    const resourcesId = crypto.randomUUID();
    await server.ctx.db
      .insertInto('access_log_resources')
      .values({
        id: resourcesId,
        clinic_id: tenant.clinicId,
        resource_type: 'call',
        resource_ids: [tenant.facilityIds[0]],
      })
      .execute();
    await server.ctx.db
      .insertInto('access_log')
      .values({
        id: crypto.randomUUID(),
        clinic_id: tenant.clinicId,
        api_key_id: tenant.keyId,
        request_id: 'r1',
        resources_id: resourcesId,
        fields: ['transcript'],
        at: sql`now() - interval '1 minute'`,
      })
      .execute();
    const auth = await server.ctx.authenticator.authenticate(`Bearer ${tenant.token}`);
    await server.ctx.accessLog.record(auth, { resourceType: 'appointment', resourceIds: [tenant.doctorId], fields: ['title', 'reason'], requestId: 'r2' });
    const all = await server.admin('GET', `/admin/v1/clinics/${tenant.clinicId}/access-log?limit=1`);
    expect(all.status).toBe(200);
    expect(all.body.data[0]).toMatchObject({ requestId: 'r2', apiKeyId: tenant.keyId, resourceType: 'appointment', fields: ['title', 'reason'] });
    const next = await server.admin('GET', `/admin/v1/clinics/${tenant.clinicId}/access-log?limit=1&cursor=${encodeURIComponent(all.body.nextCursor)}`);
    expect(next.body.data[0].requestId).toBe('r1');
    const one = await server.admin('GET', `/admin/v1/clinics/${tenant.clinicId}/access-log?resourceId=${tenant.doctorId}`);
    expect(one.body.data.map((e: { requestId: string }) => e.requestId)).toEqual(['r2']);
  });
});

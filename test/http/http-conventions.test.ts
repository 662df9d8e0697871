/**
 * HTTP conventions. 405 with Allow (behind the gate: without a key /v1 is
 * 401 whatever the method), Location on creations (and their replays), lists stating their
 * order, `?status=` errors listing the allowed values, facility phones in E.164.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());

describe('a known path with the wrong method', () => {
  it('is 405 with Allow, in the header and in the envelope, for a caller with a key', async () => {
    const res = await server.call('PUT', `/v1/tasks/${tenant.facilityIds[0]}`, { token: tenant.token, body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, PATCH');
    expect(res.body).toMatchObject({
      error: { code: 'method_not_allowed', details: { allow: ['GET', 'HEAD', 'PATCH'] }, requestId: res.headers.get('x-request-id') },
    });
    const list = await server.call('DELETE', '/v1/patients', { token: tenant.token });
    expect(list.status).toBe(405);
    expect(list.headers.get('allow')).toBe('POST');
  });

  it('is still 401 without a key (the gate comes first: nothing is told about /v1 paths), and 404 for an unknown path', async () => {
    const res = await server.call('PUT', `/v1/tasks/${tenant.facilityIds[0]}`);
    expect(res.status).toBe(401);
    expect(res.headers.get('allow')).toBeNull();
    expect((await server.call('PUT', '/v1/tasks/x', { token: 'dcm_live_wrong' })).status).toBe(401);
    expect((await server.call('GET', '/v1/nothing-here', { token: tenant.token })).status).toBe(404);
  });

  it('is 405 on public paths, and 404 on back-office paths (not public, not told)', async () => {
    const health = await server.call('POST', '/healthz');
    expect(health.status).toBe(405);
    expect(health.headers.get('allow')).toContain('GET');
    expect((await server.call('PUT', '/admin/v1/clinics')).status).toBe(404);
    expect((await server.admin('PUT', '/admin/v1/clinics')).status).toBe(404);
  });
});

describe('Location', () => {
  it('answers every creation with the address of what was created, replays included', async () => {
    const headers = { 'idempotency-key': `loc-${Date.now()}` };
    const body = { firstName: 'Anna', lastName: 'Location', phone: '+39 347 555 0101' };
    const created = await server.call('POST', '/v1/patients', { token: tenant.token, body, headers });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/v1/patients/${(created.body as { id: string }).id}`);
    const replay = await server.call('POST', '/v1/patients', { token: tenant.token, body, headers });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('location')).toBe(created.headers.get('location'));
    expect((await server.call('GET', created.headers.get('location')!, { token: tenant.token })).status).toBe(200);

    const lead = await server.call('POST', '/v1/leads', { token: tenant.token, body: { firstName: 'Bruno', lastName: 'Location', phone: '+39 347 555 0102' } });
    expect(lead.headers.get('location')).toBe(`/v1/leads/${(lead.body as { id: string }).id}`);
    const clinic = await server.admin('POST', '/admin/v1/clinics', { name: 'Studio Location' });
    expect(clinic.headers.get('location')).toBe(`/admin/v1/clinics/${(clinic.body as { id: string }).id}`);
  });
});

describe('lists and filters', () => {
  it('every list states its order; events and deliveries say why theirs differ', async () => {
    const doc = (await server.call('GET', '/v1/openapi.json')).body as { paths: Record<string, Record<string, any>> };
    for (const item of Object.values(doc.paths))
      for (const [method, op] of Object.entries(item)) {
        const data = op.responses?.['200']?.content?.['application/json']?.schema?.properties?.data;
        if (method !== 'get' || data?.type !== 'array') continue;
        expect(op.description, op.operationId).toMatch(/order|oldest first|newest first|ranked by/i);
      }
    const describe = (id: string) =>
      Object.values(doc.paths)
        .flatMap((i) => Object.values(i))
        .find((o) => o.operationId === id).description as string;
    expect(describe('listEvents')).toContain('unlike `GET /webhook-deliveries` (newest first) on purpose');
    expect(describe('listWebhookDeliveries')).toContain('unlike `GET /events` (oldest first) on purpose');
  });

  it('a wrong ?status= names the allowed values', async () => {
    const res = await server.call('GET', '/v1/tasks?status=aperto', { token: tenant.token });
    expect(res.status).toBe(400);
    const issue = (res.body as { error: { details: { issues: Array<{ path: string; message: string }> } } }).error.details.issues[0]!;
    expect(issue.path).toBe('status');
    expect(issue.message).toMatch(/todo, in_progress, done/);
    const deliveries = await server.call('GET', '/v1/webhook-deliveries?status=ok', { token: tenant.token });
    expect(JSON.stringify(deliveries.body)).toMatch(/pending.*succeeded/);
  });
});

describe('facility phones', () => {
  it('come out in E.164 like every other phone, and a number that is none is refused naming the field', async () => {
    const created = await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/facilities`, { name: 'Sede di Bergamo', phone: '035 123 4567' });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    const read = await server.call('GET', `/v1/facilities/${id}`, { token: tenant.token });
    expect((read.body as { phone: string }).phone).toBe('+390351234567');
    const changed = await server.admin('PATCH', `/admin/v1/clinics/${tenant.clinicId}/facilities/${id}`, { phone: '0039 02 1234 5678' });
    expect(changed.status).toBe(200);
    expect((changed.body as { phone: string }).phone).toBe('+390212345678');
    const bad = await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/facilities`, { name: 'Sede Sbagliata', phone: 'non ho telefono' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'invalid_request', details: { in: 'body', issues: [{ path: 'phone' }] } } });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OperationTypes } from '../../../packages/client/src/index.js';
import { refused as rejection } from '../../helpers/refused.js';
import { SCOPES } from '../../../src/modules/auth/scopes.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let tenant: Tenant;
const URL = 'https://hooks.example.com/dental';

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());

type EndpointInput = OperationTypes['createWebhookEndpoint']['requestBody']['content']['application/json'];

/** createWebhookEndpoint through the typed client: `{ data, response }`, throws ApiClientError on a non-2xx answer. */
const create = (token: string, body: EndpointInput, headers?: Record<string, string>) =>
  server.api(token).callWithResponse('createWebhookEndpoint', { body, headers });
/** A body outside the contract (validation tests): the raw call. */
const createRaw = (token: string, body: unknown) => server.call('POST', '/v1/webhook-endpoints', { token, body });
const getEndpoint = (token: string, id: string) => server.api(token).callWithResponse('getWebhookEndpoint', { params: { path: { id } } });
const update = (
  token: string,
  id: string,
  body: OperationTypes['updateWebhookEndpoint']['requestBody']['content']['application/json'],
  headers?: Record<string, string>,
) => server.api(token).callWithResponse('updateWebhookEndpoint', { params: { path: { id } }, body, headers });

describe('webhook destinations', () => {
  it('creates a destination, shows the secret only once, and reads it back without it', async () => {
    const created = await create(tenant.token, { url: URL, events: ['patient.created', 'appointment.created'], description: 'CRM' });
    expect(created.response.status).toBe(201);
    const res = created.data;
    // Standard padded base64 of 32 bytes: a key the Standard Webhooks libraries decode.
    expect(res.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Object.keys(res).sort()).toEqual(
      [
        'createdAt',
        'description',
        'disabledReason',
        'enabled',
        'events',
        'id',
        'previousSecretExpiresAt',
        'secret',
        'signatureScheme',
        'updatedAt',
        'url',
      ].sort(),
    );
    expect(res).toMatchObject({
      url: URL,
      events: ['patient.created', 'appointment.created'],
      description: 'CRM',
      enabled: true,
      disabledReason: null,
      previousSecretExpiresAt: null,
      signatureScheme: 'service',
    });
    const one = await getEndpoint(tenant.token, res.id);
    expect(one.response.status).toBe(200);
    // The read answer's type has no `secret`: the check proves the server sends none.
    expect((one.data as Record<string, unknown>).secret).toBeUndefined();
    expect(JSON.stringify(one.data)).not.toContain(res.secret);
    const list = await server.api(tenant.token).call('listWebhookEndpoints');
    expect(list.data.map((e) => e.id)).toContain(res.id);
    expect(JSON.stringify(list)).not.toContain('whsec_');
  });

  it('needs webhooks:write plus the scope of every chosen event, listing exactly the missing ones', async () => {
    const key = await server.factories.key(tenant.clinicId, ['webhooks:write', 'webhooks:read', 'patients:read']);
    const res = await rejection(create(key.token, { url: URL, events: ['patient.created', 'appointment.created', 'invoice.paid', 'payment.received'] }));
    expect(res.status).toBe(403);
    expect(res.code).toBe('insufficient_scope');
    expect((res.details?.requiredScopes as string[]).sort()).toEqual(['appointments:read', 'billing:read']);
    const noWrite = await server.factories.key(tenant.clinicId, ['webhooks:read', 'patients:read']);
    const res2 = await rejection(create(noWrite.token, { url: URL, events: ['patient.created', 'lead.created'] }));
    expect((res2.details?.requiredScopes as string[]).sort()).toEqual(['leads:read', 'webhooks:write']);
  });

  it('accepts 1 to 50 distinct catalogue types, never webhook.test or events.skipped', async () => {
    // Bodies outside the contract: raw calls.
    for (const events of [[], ['webhook.test'], ['events.skipped'], ['patient.created', 'patient.created'], ['nope.nope'], 'patient.created']) {
      const res = await createRaw(tenant.token, { url: URL, events });
      expect(res.status, JSON.stringify(events)).toBe(400);
      expect(res.body.error.details.issues[0].path).toMatch(/^events/);
    }
    const missing = await createRaw(tenant.token, { events: ['patient.created'] });
    expect(missing.status).toBe(400);
    const extra = await createRaw(tenant.token, { url: URL, events: ['patient.created'], secret: 'whsec_mine' });
    expect(extra.status).toBe(400);
  });

  it('refuses a 21st destination with 409 conflict endpoint_limit; a deleted one frees a place', async () => {
    const t = await server.factories.tenant();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await create(t.token, { url: `${URL}/${i}`, events: ['task.created'] });
      expect(res.response.status).toBe(201);
      ids.push(res.data.id);
    }
    await expect(create(t.token, { url: URL, events: ['task.created'] })).rejects.toMatchObject({ status: 409, details: { reason: 'endpoint_limit' } });
    const del = await server.api(t.token).callWithResponse('deleteWebhookEndpoint', { params: { path: { id: ids[0]! } } });
    expect(del.response.status).toBe(204);
    await expect(getEndpoint(t.token, ids[0]!)).rejects.toMatchObject({ status: 404 });
    expect((await create(t.token, { url: URL, events: ['task.created'] })).response.status).toBe(201);
  });

  it('refuses to replay a creation with the same Idempotency-Key: the secret is never stored', async () => {
    // Our own key (the client keeps a key the caller set); the replay through `raw` to read its whole answer.
    const headers = { 'Idempotency-Key': `create-${crypto.randomUUID()}` };
    const api = server.api(tenant.token);
    const first = await create(tenant.token, { url: URL, events: ['lead.created'] }, headers);
    expect(first.response.status).toBe(201);
    const replay = await api.raw.POST('/webhook-endpoints', { body: { url: URL, events: ['lead.created'] }, headers });
    expect(replay.response.status).toBe(409);
    expect(replay.error?.error.details?.reason).toBe('response_not_stored');
    expect(JSON.stringify(replay.error)).not.toContain(first.data.secret);
  });

  it('PATCH switches a destination off and on, and changing events needs their scopes', async () => {
    const ep = (await create(tenant.token, { url: URL, events: ['task.created'] })).data;
    const off = await update(tenant.token, ep.id, { enabled: false });
    expect(off.response.status).toBe(200);
    expect(off.data.enabled).toBe(false);
    const writer = await server.factories.key(tenant.clinicId, ['webhooks:write', 'webhooks:read', 'tasks:read']);
    const on = await update(writer.token, ep.id, { enabled: true });
    expect(on.response.status).toBe(200);
    expect(on.data).toMatchObject({ enabled: true, disabledReason: null });
    await expect(update(writer.token, ep.id, { events: ['task.created', 'call.logged'] })).rejects.toMatchObject({
      status: 403,
      details: { requiredScopes: ['calls:read'] },
    });
    const onlyEnable = await server.factories.key(tenant.clinicId, ['webhooks:write', 'webhooks:read']);
    await expect(update(onlyEnable.token, ep.id, { description: 'x' })).rejects.toMatchObject({ status: 403, details: { requiredScopes: ['tasks:read'] } });
    const ok = await update(tenant.token, ep.id, { events: ['task.created', 'call.logged'], url: 'https://other.example.org/x' });
    expect(ok.response.status).toBe(200);
    expect(ok.data).toMatchObject({ events: ['task.created', 'call.logged'], url: 'https://other.example.org/x' });
    await expect(update(tenant.token, ep.id, { enabled: true }, { 'If-Match': '"1"' })).rejects.toMatchObject({
      status: 409,
      details: { reason: 'version_mismatch' },
    });
    await expect(update(tenant.token, ep.id, { url: 'https://10.0.0.1/x' })).rejects.toMatchObject({ status: 400 });
    // An empty patch is outside the contract (minProperties 1): raw call.
    expect((await server.call('PATCH', `/v1/webhook-endpoints/${ep.id}`, { token: tenant.token, body: {} })).status).toBe(400);
  });

  it('rotates the secret with an overlap (default 1440 minutes, 0 stops the old one at once)', async () => {
    const ep = (await create(tenant.token, { url: URL, events: ['task.created'] })).data;
    const api = server.api(tenant.token);
    const before = Date.now();
    const rotated = await api.callWithResponse('rotateWebhookEndpointSecret', { params: { path: { id: ep.id } }, body: {} });
    expect(rotated.response.status).toBe(200);
    expect(rotated.data.secret).toMatch(/^whsec_/);
    expect(rotated.data.secret).not.toBe(ep.secret);
    const expires = Date.parse(rotated.data.previousSecretExpiresAt!);
    expect(expires - before).toBeGreaterThan(1439 * 60_000);
    expect(expires - before).toBeLessThan(1441 * 60_000);
    const row = await server.ctx.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', ep.id).executeTakeFirstOrThrow();
    expect(row.previous_secret).toBe(ep.secret);
    const zero = await api.call('rotateWebhookEndpointSecret', { params: { path: { id: ep.id } }, body: { overlapMinutes: 0 } });
    expect(Date.parse(zero.previousSecretExpiresAt!)).toBeLessThanOrEqual(Date.now() + 1000);
    // Values outside the contract: raw calls.
    for (const overlapMinutes of [-1, 10081, 1.5, '60']) {
      const res = await server.call('POST', `/v1/webhook-endpoints/${ep.id}/rotate-secret`, { token: tenant.token, body: { overlapMinutes } });
      expect(res.status, String(overlapMinutes)).toBe(400);
    }
    expect(JSON.stringify((await getEndpoint(tenant.token, ep.id)).data)).not.toContain('whsec_');
  });

  it('hides destinations from a key limited to facilities unless its creator was limited to some of them', async () => {
    const t = await server.factories.tenant();
    const all = (await create(t.token, { url: URL, events: ['task.created'] })).data;
    const limitedA = await server.factories.key(t.clinicId, [...SCOPES], [t.facilityIds[0]]);
    const limitedBoth = await server.factories.key(t.clinicId, [...SCOPES], [...t.facilityIds]);
    const own = (await create(limitedA.token, { url: URL, events: ['task.created'] })).data;
    await expect(getEndpoint(limitedA.token, all.id)).rejects.toMatchObject({ status: 404 });
    expect((await getEndpoint(limitedA.token, own.id)).response.status).toBe(200);
    expect((await getEndpoint(limitedBoth.token, own.id)).response.status).toBe(200);
    expect((await getEndpoint(t.token, own.id)).response.status).toBe(200);
    const list = await server.api(limitedA.token).call('listWebhookEndpoints');
    expect(list.data.map((e) => e.id)).toEqual([own.id]);
    const other = await server.factories.tenant();
    await expect(getEndpoint(other.token, own.id)).rejects.toMatchObject({ status: 404 });
  });

  it('documents every operation in the OpenAPI document', async () => {
    // The document itself is not an operation of the typed client: raw call.
    const doc = (await server.call('GET', '/v1/openapi.json')).body;
    const ops = [
      'createWebhookEndpoint',
      'listWebhookEndpoints',
      'getWebhookEndpoint',
      'updateWebhookEndpoint',
      'deleteWebhookEndpoint',
      'rotateWebhookEndpointSecret',
      'testWebhookEndpoint',
      'listEvents',
      'listWebhookDeliveries',
      'getWebhookDelivery',
      'redeliverWebhookDelivery',
    ];
    const found = new Map<string, any>();
    for (const item of Object.values(doc.paths as Record<string, Record<string, any>>)) for (const op of Object.values(item)) found.set(op.operationId, op);
    for (const id of ops) {
      const op = found.get(id);
      expect(op, id).toBeTruthy();
      expect(op.tags).toEqual(['Webhooks and events']);
      expect(op.summary && op.description).toBeTruthy();
    }
    expect(found.get('createWebhookEndpoint').responses['201']).toBeTruthy();
    expect(found.get('redeliverWebhookDelivery').responses['409']).toBeTruthy();
  });
});

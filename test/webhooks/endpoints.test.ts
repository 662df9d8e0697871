import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/modules/auth/scopes.js';
import type { Tenant } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let tenant: Tenant;
const URL = 'https://hooks.example.com/dental';

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());

const create = (token: string, body: unknown, headers?: Record<string, string>) => server.call('POST', '/v1/webhook-endpoints', { token, body, headers });

describe('webhook destinations', () => {
  it('creates a destination, shows the secret only once, and reads it back without it', async () => {
    const res = await create(tenant.token, { url: URL, events: ['patient.created', 'appointment.created'], description: 'CRM' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Object.keys(res.body).sort()).toEqual(
      ['createdAt', 'description', 'disabledReason', 'enabled', 'events', 'id', 'previousSecretExpiresAt', 'secret', 'updatedAt', 'url'].sort(),
    );
    expect(res.body).toMatchObject({
      url: URL,
      events: ['patient.created', 'appointment.created'],
      description: 'CRM',
      enabled: true,
      disabledReason: null,
      previousSecretExpiresAt: null,
    });
    const one = await server.call('GET', `/v1/webhook-endpoints/${res.body.id}`, { token: tenant.token });
    expect(one.status).toBe(200);
    expect(one.body.secret).toBeUndefined();
    expect(one.text).not.toContain(res.body.secret);
    const list = await server.call('GET', '/v1/webhook-endpoints', { token: tenant.token });
    expect(list.body.data.map((e: any) => e.id)).toContain(res.body.id);
    expect(list.text).not.toContain('whsec_');
  });

  it('needs webhooks:write plus the scope of every chosen event, listing exactly the missing ones', async () => {
    const key = await server.factories.key(tenant.clinicId, ['webhooks:write', 'webhooks:read', 'patients:read']);
    const res = await create(key.token, { url: URL, events: ['patient.created', 'appointment.created', 'invoice.paid', 'payment.received'] });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect(res.body.error.details.requiredScopes.sort()).toEqual(['appointments:read', 'billing:read']);
    const noWrite = await server.factories.key(tenant.clinicId, ['webhooks:read', 'patients:read']);
    const res2 = await create(noWrite.token, { url: URL, events: ['patient.created', 'lead.created'] });
    expect(res2.body.error.details.requiredScopes.sort()).toEqual(['leads:read', 'webhooks:write']);
  });

  it('accepts 1 to 50 distinct catalogue types, never webhook.test or events.skipped', async () => {
    for (const events of [[], ['webhook.test'], ['events.skipped'], ['patient.created', 'patient.created'], ['nope.nope'], 'patient.created']) {
      const res = await create(tenant.token, { url: URL, events });
      expect(res.status, JSON.stringify(events)).toBe(400);
      expect(res.body.error.details.issues[0].path).toMatch(/^events/);
    }
    const missing = await create(tenant.token, { events: ['patient.created'] });
    expect(missing.status).toBe(400);
    const extra = await create(tenant.token, { url: URL, events: ['patient.created'], secret: 'whsec_mine' });
    expect(extra.status).toBe(400);
  });

  it('refuses a 21st destination with 409 conflict endpoint_limit; a deleted one frees a place', async () => {
    const t = await server.factories.tenant();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await create(t.token, { url: `${URL}/${i}`, events: ['task.created'] });
      expect(res.status, res.text).toBe(201);
      ids.push(res.body.id);
    }
    const over = await create(t.token, { url: URL, events: ['task.created'] });
    expect(over.status).toBe(409);
    expect(over.body.error.details.reason).toBe('endpoint_limit');
    const del = await server.call('DELETE', `/v1/webhook-endpoints/${ids[0]}`, { token: t.token });
    expect(del.status).toBe(204);
    expect((await server.call('GET', `/v1/webhook-endpoints/${ids[0]}`, { token: t.token })).status).toBe(404);
    expect((await create(t.token, { url: URL, events: ['task.created'] })).status).toBe(201);
  });

  it('refuses to replay a creation with the same Idempotency-Key: the secret is never stored', async () => {
    const headers = { 'idempotency-key': `create-${crypto.randomUUID()}` };
    const first = await create(tenant.token, { url: URL, events: ['lead.created'] }, headers);
    expect(first.status).toBe(201);
    const replay = await create(tenant.token, { url: URL, events: ['lead.created'] }, headers);
    expect(replay.status).toBe(409);
    expect(replay.body.error.details.reason).toBe('response_not_stored');
    expect(replay.text).not.toContain(first.body.secret);
  });

  it('PATCH switches a destination off and on, and changing events needs their scopes', async () => {
    const ep = (await create(tenant.token, { url: URL, events: ['task.created'] })).body;
    const off = await server.call('PATCH', `/v1/webhook-endpoints/${ep.id}`, { token: tenant.token, body: { enabled: false } });
    expect(off.status).toBe(200);
    expect(off.body.enabled).toBe(false);
    const writer = await server.factories.key(tenant.clinicId, ['webhooks:write', 'webhooks:read', 'tasks:read']);
    const on = await server.call('PATCH', `/v1/webhook-endpoints/${ep.id}`, { token: writer.token, body: { enabled: true } });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ enabled: true, disabledReason: null });
    const widen = await server.call('PATCH', `/v1/webhook-endpoints/${ep.id}`, { token: writer.token, body: { events: ['task.created', 'call.logged'] } });
    expect(widen.status).toBe(403);
    expect(widen.body.error.details.requiredScopes).toEqual(['calls:read']);
    const onlyEnable = await server.factories.key(tenant.clinicId, ['webhooks:write', 'webhooks:read']);
    const desc = await server.call('PATCH', `/v1/webhook-endpoints/${ep.id}`, { token: onlyEnable.token, body: { description: 'x' } });
    expect(desc.status).toBe(403);
    expect(desc.body.error.details.requiredScopes).toEqual(['tasks:read']);
    const ok = await server.call('PATCH', `/v1/webhook-endpoints/${ep.id}`, {
      token: tenant.token,
      body: { events: ['task.created', 'call.logged'], url: 'https://other.example.org/x' },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ events: ['task.created', 'call.logged'], url: 'https://other.example.org/x' });
    const stale = await server.call('PATCH', `/v1/webhook-endpoints/${ep.id}`, {
      token: tenant.token,
      body: { enabled: true },
      headers: { 'if-match': '"1"' },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.details.reason).toBe('version_mismatch');
    const bad = await server.call('PATCH', `/v1/webhook-endpoints/${ep.id}`, { token: tenant.token, body: { url: 'https://10.0.0.1/x' } });
    expect(bad.status).toBe(400);
    expect((await server.call('PATCH', `/v1/webhook-endpoints/${ep.id}`, { token: tenant.token, body: {} })).status).toBe(400);
  });

  it('rotates the secret with an overlap (default 1440 minutes, 0 stops the old one at once)', async () => {
    const ep = (await create(tenant.token, { url: URL, events: ['task.created'] })).body;
    const before = Date.now();
    const rotated = await server.call('POST', `/v1/webhook-endpoints/${ep.id}/rotate-secret`, { token: tenant.token, body: {} });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(ep.secret);
    const expires = Date.parse(rotated.body.previousSecretExpiresAt);
    expect(expires - before).toBeGreaterThan(1439 * 60_000);
    expect(expires - before).toBeLessThan(1441 * 60_000);
    const row = await server.ctx.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', ep.id).executeTakeFirstOrThrow();
    expect(row.previous_secret).toBe(ep.secret);
    const zero = await server.call('POST', `/v1/webhook-endpoints/${ep.id}/rotate-secret`, { token: tenant.token, body: { overlapMinutes: 0 } });
    expect(Date.parse(zero.body.previousSecretExpiresAt)).toBeLessThanOrEqual(Date.now() + 1000);
    for (const overlapMinutes of [-1, 10081, 1.5, '60']) {
      const res = await server.call('POST', `/v1/webhook-endpoints/${ep.id}/rotate-secret`, { token: tenant.token, body: { overlapMinutes } });
      expect(res.status, String(overlapMinutes)).toBe(400);
    }
    expect((await server.call('GET', `/v1/webhook-endpoints/${ep.id}`, { token: tenant.token })).text).not.toContain('whsec_');
  });

  it('hides destinations from a key limited to facilities unless its creator was limited to some of them', async () => {
    const t = await server.factories.tenant();
    const all = (await create(t.token, { url: URL, events: ['task.created'] })).body;
    const limitedA = await server.factories.key(t.clinicId, [...SCOPES], [t.facilityIds[0]]);
    const limitedBoth = await server.factories.key(t.clinicId, [...SCOPES], [...t.facilityIds]);
    const own = (await create(limitedA.token, { url: URL, events: ['task.created'] })).body;
    expect((await server.call('GET', `/v1/webhook-endpoints/${all.id}`, { token: limitedA.token })).status).toBe(404);
    expect((await server.call('GET', `/v1/webhook-endpoints/${own.id}`, { token: limitedA.token })).status).toBe(200);
    expect((await server.call('GET', `/v1/webhook-endpoints/${own.id}`, { token: limitedBoth.token })).status).toBe(200);
    expect((await server.call('GET', `/v1/webhook-endpoints/${own.id}`, { token: t.token })).status).toBe(200);
    const list = await server.call('GET', '/v1/webhook-endpoints', { token: limitedA.token });
    expect(list.body.data.map((e: any) => e.id)).toEqual([own.id]);
    const other = await server.factories.tenant();
    expect((await server.call('GET', `/v1/webhook-endpoints/${own.id}`, { token: other.token })).status).toBe(404);
  });

  it('documents every operation in the OpenAPI document', async () => {
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

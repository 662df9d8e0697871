import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { SCOPES } from '../../../src/modules/auth/scopes.js';
import { purgeWebhookData } from '../../../src/modules/webhooks/jobs.js';
import type { TestServer } from '../../helpers/server.js';
import { withinOneWindow } from '../../helpers/windows.js';
import { emit, startWebhookRig, until, verified, type Receiver, type WebhookEventTypes, type WebhookRig } from './helpers.js';

let rig: WebhookRig;
let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  rig = await startWebhookRig();
  ({ server, receiver } = rig);
});
afterAll(() => rig.close());

const endpoint = (token: string, path: string, events: WebhookEventTypes) => rig.endpoint(token, path, events);
const delivery = (token: string, id: string) => server.api(token).call('getWebhookDelivery', { params: { path: { id } } });
const redeliver = (token: string, id: string) => server.api(token).callWithResponse('redeliverWebhookDelivery', { params: { path: { id } } });

describe('GET /events', () => {
  it('lists the events the key can see, oldest first, with type filter, paging and updatedSince', async () => {
    const t = await server.factories.tenant();
    const [f1, f2] = t.facilityIds;
    const ids: string[] = [];
    const patientIds = Array.from({ length: 5 }, () => crypto.randomUUID());
    for (const id of patientIds) ids.push((await emit(server.ctx, t.clinicId, 'patient.created', f1, { id })).id);
    const onF2 = (await emit(server.ctx, t.clinicId, 'lead.created', f2)).id;
    const noFacility = (await emit(server.ctx, t.clinicId, 'invoice.paid', null)).id;

    const api = server.api(t.token);
    const all = await api.callWithResponse('listEvents', { params: { query: { limit: 200 } } });
    expect(all.response.status).toBe(200);
    expect(all.data.data.map((e) => e.id)).toEqual([...ids, onF2, noFacility]);
    const first = all.data.data[0]!;
    expect(Object.keys(first)).toEqual(['id', 'eventId', 'type', 'createdAt', 'apiVersion', 'livemode', 'facilityId', 'data']);
    expect(first).toMatchObject({
      id: ids[0],
      eventId: ids[0],
      type: 'patient.created',
      apiVersion: 'v1',
      livemode: true,
      facilityId: f1,
      data: { id: patientIds[0], facilityId: f1 },
    });

    const typed = await api.call('listEvents', { params: { query: { type: 'patient.created', limit: 2 } } });
    expect(typed.data.map((e) => e.id)).toEqual(ids.slice(0, 2));
    const page2 = await api.call('listEvents', { params: { query: { type: 'patient.created', limit: 2, cursor: typed.nextCursor! } } });
    expect(page2.data.map((e) => e.id)).toEqual(ids.slice(2, 4));
    await expect(api.call('listEvents', { params: { query: { type: 'lead.created', limit: 2, cursor: typed.nextCursor! } } })).rejects.toMatchObject({
      status: 400,
    });

    const since = all.data.data[5]!.createdAt;
    const recent = await api.call('listEvents', { params: { query: { updatedSince: since } } });
    expect(recent.data.map((e) => e.id)).toContain(noFacility);
    expect(recent.data.map((e) => e.id)).not.toContain(ids[0]);

    const listEvents = async (token: string) => (await server.api(token).call('listEvents')).data;
    const limited = await server.factories.key(t.clinicId, [...SCOPES], [f1]);
    expect((await listEvents(limited.token)).map((e) => e.id)).toEqual(ids);
    const noPatients = await server.factories.keyWithout(t.clinicId, ['patients:read']);
    expect((await listEvents(noPatients.token)).map((e) => e.id)).toEqual([onF2, noFacility]);
    const other = await server.factories.tenant();
    expect(await listEvents(other.token)).toEqual([]);
    // A type outside the contract's list (webhook.test is never an event): raw call.
    expect((await server.call('GET', '/v1/events?type=webhook.test', { token: t.token })).status).toBe(400);
  });

  it('shows only the last 30 days and the retention job purges finished deliveries (events go with their month: test/db/partitions.test.ts)', async () => {
    const t = await server.factories.tenant();
    const ep = await endpoint(t.token, '/old', ['task.created']);
    const old = await emit(server.ctx, t.clinicId, 'task.created', t.facilityIds[0]);
    const keep = await emit(server.ctx, t.clinicId, 'task.created', t.facilityIds[0]);
    await receiver.waitFor(() => receiver.forPath('/old').length === 2);
    await until(
      () => server.ctx.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', ep.id).where('status', '=', 'succeeded').execute(),
      (r) => r.length === 2,
    );
    // The month 31 days back may be older than the months the migrations made.
    await sql`SELECT create_month_partitions('events', now() - interval '31 days', now())`.execute(server.ctx.db);
    await sql`UPDATE events SET created_at = now() - interval '31 days' WHERE id = ${old.id}`.execute(server.ctx.db);
    await sql`UPDATE webhook_deliveries SET finished_at = now() - interval '31 days' WHERE event_id = ${old.id}`.execute(server.ctx.db);
    const listed = await server.api(t.token).call('listEvents');
    expect(listed.data.map((e) => e.id)).toEqual([keep.id]);
    const purged = await purgeWebhookData(server.ctx.db);
    expect(purged.deliveries).toBeGreaterThanOrEqual(1);
    const left = await server.ctx.db.selectFrom('webhook_deliveries').select('event_id').where('endpoint_id', '=', ep.id).execute();
    expect(left.map((d) => d.event_id)).toEqual([keep.id]);
  });
});

describe('GET /webhook-deliveries', () => {
  it('filters by endpointId and status, pages newest first, and keeps a deleted destination’s deliveries readable', async () => {
    const t = await server.factories.tenant();
    const api = server.api(t.token);
    const ok = await endpoint(t.token, '/list/ok', ['task.created']);
    const bad = await endpoint(t.token, '/list/bad', ['task.created']);
    receiver.respond('/list/bad', 500);
    for (let i = 0; i < 3; i++) await emit(server.ctx, t.clinicId, 'task.created', t.facilityIds[0]);
    await receiver.waitFor(() => receiver.forPath('/list/ok').length === 3);
    await until(
      () => api.call('listWebhookDeliveries', { params: { query: { endpointId: ok.id, status: 'succeeded' } } }),
      (r) => r.data.length === 3,
    );
    const badOnes = await api.call('listWebhookDeliveries', { params: { query: { endpointId: bad.id } } });
    expect(badOnes.data).toHaveLength(3);
    expect(badOnes.data.every((d) => d.endpointId === bad.id && d.status !== 'succeeded')).toBe(true);
    const p1 = await api.call('listWebhookDeliveries', { params: { query: { limit: 4 } } });
    const p2 = await api.call('listWebhookDeliveries', { params: { query: { limit: 4, cursor: p1.nextCursor! } } });
    const ids = [...p1.data, ...p2.data].map((d) => d.id);
    expect(new Set(ids).size).toBe(6);
    expect(p2.nextCursor).toBeNull();
    const created = [...p1.data, ...p2.data].map((d) => d.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
    // A status outside the contract's list: raw call.
    expect((await server.call('GET', '/v1/webhook-deliveries?status=nope', { token: t.token })).status).toBe(400);

    expect((await api.callWithResponse('deleteWebhookEndpoint', { params: { path: { id: ok.id } } })).response.status).toBe(204);
    const after = await api.call('listWebhookDeliveries', { params: { query: { endpointId: ok.id } } });
    expect(after.data).toHaveLength(3);
    expect((await api.callWithResponse('getWebhookDelivery', { params: { path: { id: after.data[0]!.id } } })).response.status).toBe(200);
    const other = await server.factories.tenant();
    await expect(delivery(other.token, after.data[0]!.id)).rejects.toMatchObject({ status: 404 });
    expect((await server.api(other.token).call('listWebhookDeliveries')).data).toEqual([]);
  });
});

describe('POST /webhook-deliveries/{id}/redeliver', () => {
  it('sends a finished delivery again with the same body and key, at most 3 times', async () => {
    const t = await server.factories.tenant();
    const ep = await endpoint(t.token, '/again', ['lead.converted']);
    await emit(server.ctx, t.clinicId, 'lead.converted', null, { id: crypto.randomUUID(), patientId: crypto.randomUUID() });
    await receiver.waitFor(() => receiver.forPath('/again').length === 1);
    const first = receiver.forPath('/again')[0]!;
    const id = first.headers['x-service-idempotency-key'] as string;
    await until(
      () => delivery(t.token, id),
      (r) => r.status === 'succeeded',
    );
    for (let n = 1; n <= 3; n++) {
      const res = await redeliver(t.token, id);
      expect(res.response.status).toBe(202);
      expect(res.data).toMatchObject({ id, redeliveries: n });
      await receiver.waitFor(() => receiver.forPath('/again').length === n + 1);
      await until(
        () => delivery(t.token, id),
        (r) => r.status === 'succeeded',
      );
    }
    const all = receiver.forPath('/again');
    expect(new Set(all.map((r) => r.raw.toString())).size).toBe(1);
    expect(new Set(all.map((r) => r.headers['x-service-idempotency-key']))).toEqual(new Set([id]));
    for (const r of all) expect(verified(r.raw, r.headers, [ep.secret]).ok).toBe(true);
    await expect(redeliver(t.token, id)).rejects.toMatchObject({ status: 409, details: { reason: 'redeliver_limit' } });
    const detail = await delivery(t.token, id);
    expect(detail.attempts.map((a) => [a.number, a.redelivery])).toEqual([
      [1, false],
      [2, true],
      [3, true],
      [4, true],
    ]);
  });

  it('refuses a delivery still pending with 409 delivery_not_finished, and redelivers a discarded one once', async () => {
    const t = await server.factories.tenant();
    await endpoint(t.token, '/again/bad', ['task.created']);
    let status = 500;
    receiver.respond('/again/bad', () => status);
    await emit(server.ctx, t.clinicId, 'task.created', t.facilityIds[0]);
    await receiver.waitFor(() => receiver.forPath('/again/bad').length === 1);
    const id = receiver.forPath('/again/bad')[0]!.headers['x-service-idempotency-key'] as string;
    await expect(redeliver(t.token, id)).rejects.toMatchObject({ status: 409, details: { reason: 'delivery_not_finished' } });
    await until(
      () => delivery(t.token, id),
      (r) => r.status === 'discarded',
      30_000,
    );
    status = 200;
    expect((await redeliver(t.token, id)).response.status).toBe(202);
    const done = await until(
      () => delivery(t.token, id),
      (r) => r.status === 'succeeded',
    );
    expect(done.attempts).toHaveLength(6);
    expect(done.attempts[5]).toMatchObject({ number: 6, statusCode: 200, success: true, redelivery: true });
  });
});

describe('redelivery refusals', () => {
  it('answers 409 endpoint_disabled and endpoint_deleted, and 404 to another clinic', async () => {
    const t = await server.factories.tenant();
    const ep = await endpoint(t.token, '/again/gone', ['task.created']);
    await emit(server.ctx, t.clinicId, 'task.created', t.facilityIds[0]);
    await receiver.waitFor(() => receiver.forPath('/again/gone').length === 1);
    const id = receiver.forPath('/again/gone')[0]!.headers['x-service-idempotency-key'] as string;
    await until(
      () => delivery(t.token, id),
      (r) => r.status === 'succeeded',
    );
    const other = await server.factories.tenant();
    await expect(redeliver(other.token, id)).rejects.toMatchObject({ status: 404 });
    const api = server.api(t.token);
    await api.call('updateWebhookEndpoint', { params: { path: { id: ep.id } }, body: { enabled: false } });
    await expect(redeliver(t.token, id)).rejects.toMatchObject({ status: 409, details: { reason: 'endpoint_disabled' } });
    await api.call('deleteWebhookEndpoint', { params: { path: { id: ep.id } } });
    await expect(redeliver(t.token, id)).rejects.toMatchObject({ status: 409, details: { reason: 'endpoint_deleted' } });
    expect(receiver.forPath('/again/gone')).toHaveLength(1);
  });
});

describe('POST /webhook-endpoints/{id}/test', () => {
  it('sends one signed webhook.test with empty data at once and returns its outcome, without retries', async () => {
    const t = await server.factories.tenant();
    const ep = await endpoint(t.token, '/ping', ['task.created']);
    const api = server.api(t.token);
    const sent = await api.callWithResponse('testWebhookEndpoint', { params: { path: { id: ep.id } } });
    expect(sent.response.status).toBe(200);
    const res = sent.data;
    expect(res).toMatchObject({ success: true, statusCode: 200, error: null, skipped: null });
    expect(res.durationMs).toBeGreaterThanOrEqual(0);
    const got = receiver.forPath('/ping');
    expect(got).toHaveLength(1);
    expect(got[0]!.body).toMatchObject({ id: res.id, type: 'webhook.test', data: {}, apiVersion: 'v1', livemode: true });
    expect(got[0]!.headers['x-service-idempotency-key']).toBe(res.id);
    expect(verified(got[0]!.raw, got[0]!.headers, [ep.secret]).ok).toBe(true);

    receiver.respond('/ping', 503);
    const failed = await api.call('testWebhookEndpoint', { params: { path: { id: ep.id } } });
    expect(failed).toMatchObject({ success: false, statusCode: 503 });
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.forPath('/ping')).toHaveLength(2);
    expect(await server.ctx.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', ep.id).execute()).toEqual([]);
  });

  it('is limited per destination (5 a minute), so it cannot probe hosts in a loop; other destinations and routes still answer', async () => {
    const t = await server.factories.tenant();
    const ep = await endpoint(t.token, '/probe', ['task.created']);
    const other = await endpoint(t.token, '/probe-2', ['task.created']);
    const api = server.api(t.token);
    const probe = async (id: string) => (await api.raw.POST('/webhook-endpoints/{id}/test', { params: { path: { id } } })).response.status;
    // The loop and the checks after it take seconds on a slow machine: all in one minute's window.
    await withinOneWindow(60, 30_000);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push(await probe(ep.id));
    // The two test calls above may share this minute's window with the ones here: at most 5 pass.
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(5);
    expect(statuses.at(-1)).toBe(429);
    // The same id spelled in capitals is the same destination.
    const upper = await api.raw.POST('/webhook-endpoints/{id}/test', { params: { path: { id: ep.id.toUpperCase() } } });
    expect(upper.response.status).toBe(429);
    expect(upper.error?.error.code).toBe('rate_limited');
    expect(Number(upper.response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(receiver.forPath('/probe').length).toBeLessThanOrEqual(5);
    // Another destination, and every other route, still answer.
    expect(await probe(other.id)).toBe(200);
    expect((await api.raw.GET('/webhook-endpoints')).response.status).toBe(200);
  });
});

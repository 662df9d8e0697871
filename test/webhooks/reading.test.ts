import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { SCOPES } from '../../src/modules/auth/scopes.js';
import { purgeWebhookData } from '../../src/modules/webhooks/jobs.js';
import type { TestServer } from '../helpers/server.js';
import { emit, startWebhookRig, until, verified, type Receiver, type WebhookRig } from './helpers.js';

let rig: WebhookRig;
let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  rig = await startWebhookRig();
  ({ server, receiver } = rig);
});
afterAll(() => rig.close());

const endpoint = (token: string, path: string, events: string[]) => rig.endpoint(token, path, events);

describe('GET /events', () => {
  it('lists the events the key can see, oldest first, with type filter, paging and updatedSince', async () => {
    const t = await server.factories.tenant();
    const [f1, f2] = t.facilityIds;
    const ids: string[] = [];
    const patientIds = Array.from({ length: 5 }, () => crypto.randomUUID());
    for (const id of patientIds) ids.push((await emit(server.ctx, t.clinicId, 'patient.created', f1, { id })).id);
    const onF2 = (await emit(server.ctx, t.clinicId, 'lead.created', f2)).id;
    const noFacility = (await emit(server.ctx, t.clinicId, 'invoice.paid', null)).id;

    const all = await server.call('GET', '/v1/events?limit=200', { token: t.token });
    expect(all.status).toBe(200);
    expect(all.body.data.map((e: any) => e.id)).toEqual([...ids, onF2, noFacility]);
    const first = all.body.data[0];
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

    const typed = await server.call('GET', '/v1/events?type=patient.created&limit=2', { token: t.token });
    expect(typed.body.data.map((e: any) => e.id)).toEqual(ids.slice(0, 2));
    const page2 = await server.call('GET', `/v1/events?type=patient.created&limit=2&cursor=${encodeURIComponent(typed.body.nextCursor)}`, { token: t.token });
    expect(page2.body.data.map((e: any) => e.id)).toEqual(ids.slice(2, 4));
    const wrongList = await server.call('GET', `/v1/events?type=lead.created&limit=2&cursor=${encodeURIComponent(typed.body.nextCursor)}`, { token: t.token });
    expect(wrongList.status).toBe(400);

    const since = all.body.data[5].createdAt;
    const recent = await server.call('GET', `/v1/events?updatedSince=${encodeURIComponent(since)}`, { token: t.token });
    expect(recent.body.data.map((e: any) => e.id)).toContain(noFacility);
    expect(recent.body.data.map((e: any) => e.id)).not.toContain(ids[0]);

    const limited = await server.factories.key(t.clinicId, [...SCOPES], [f1]);
    expect((await server.call('GET', '/v1/events', { token: limited.token })).body.data.map((e: any) => e.id)).toEqual(ids);
    const noPatients = await server.factories.keyWithout(t.clinicId, ['patients:read']);
    expect((await server.call('GET', '/v1/events', { token: noPatients.token })).body.data.map((e: any) => e.id)).toEqual([onF2, noFacility]);
    const other = await server.factories.tenant();
    expect((await server.call('GET', '/v1/events', { token: other.token })).body.data).toEqual([]);
    expect((await server.call('GET', '/v1/events?type=webhook.test', { token: t.token })).status).toBe(400);
  });

  it('shows only the last 30 days and the retention job purges older events and finished deliveries', async () => {
    const t = await server.factories.tenant();
    const ep = await endpoint(t.token, '/old', ['task.created']);
    const old = await emit(server.ctx, t.clinicId, 'task.created', t.facilityIds[0]);
    const keep = await emit(server.ctx, t.clinicId, 'task.created', t.facilityIds[0]);
    await receiver.waitFor(() => receiver.forPath('/old').length === 2);
    await until(
      () => server.ctx.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', ep.id).where('status', '=', 'succeeded').execute(),
      (r) => r.length === 2,
    );
    await sql`UPDATE events SET created_at = now() - interval '31 days' WHERE id = ${old.id}`.execute(server.ctx.db);
    await sql`UPDATE webhook_deliveries SET finished_at = now() - interval '31 days' WHERE event_id = ${old.id}`.execute(server.ctx.db);
    const listed = await server.call('GET', '/v1/events', { token: t.token });
    expect(listed.body.data.map((e: any) => e.id)).toEqual([keep.id]);
    const purged = await purgeWebhookData(server.ctx.db);
    expect(purged.events).toBeGreaterThanOrEqual(1);
    expect(purged.deliveries).toBeGreaterThanOrEqual(1);
    expect(await server.ctx.db.selectFrom('events').select('id').where('id', '=', old.id).executeTakeFirst()).toBeUndefined();
    const left = await server.ctx.db.selectFrom('webhook_deliveries').select('event_id').where('endpoint_id', '=', ep.id).execute();
    expect(left.map((d) => d.event_id)).toEqual([keep.id]);
  });
});

describe('GET /webhook-deliveries', () => {
  it('filters by endpointId and status, pages newest first, and keeps a deleted destination’s deliveries readable', async () => {
    const t = await server.factories.tenant();
    const ok = await endpoint(t.token, '/list/ok', ['task.created']);
    const bad = await endpoint(t.token, '/list/bad', ['task.created']);
    receiver.respond('/list/bad', 500);
    for (let i = 0; i < 3; i++) await emit(server.ctx, t.clinicId, 'task.created', t.facilityIds[0]);
    await receiver.waitFor(() => receiver.forPath('/list/ok').length === 3);
    await until(
      () => server.call('GET', `/v1/webhook-deliveries?endpointId=${ok.id}&status=succeeded`, { token: t.token }),
      (r) => r.body.data.length === 3,
    );
    const badOnes = await server.call('GET', `/v1/webhook-deliveries?endpointId=${bad.id}`, { token: t.token });
    expect(badOnes.body.data).toHaveLength(3);
    expect(badOnes.body.data.every((d: any) => d.endpointId === bad.id && d.status !== 'succeeded')).toBe(true);
    const p1 = await server.call('GET', '/v1/webhook-deliveries?limit=4', { token: t.token });
    const p2 = await server.call('GET', `/v1/webhook-deliveries?limit=4&cursor=${encodeURIComponent(p1.body.nextCursor)}`, { token: t.token });
    const ids = [...p1.body.data, ...p2.body.data].map((d: any) => d.id);
    expect(new Set(ids).size).toBe(6);
    expect(p2.body.nextCursor).toBeNull();
    const created = [...p1.body.data, ...p2.body.data].map((d: any) => d.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
    expect((await server.call('GET', '/v1/webhook-deliveries?status=nope', { token: t.token })).status).toBe(400);

    expect((await server.call('DELETE', `/v1/webhook-endpoints/${ok.id}`, { token: t.token })).status).toBe(204);
    const after = await server.call('GET', `/v1/webhook-deliveries?endpointId=${ok.id}`, { token: t.token });
    expect(after.body.data).toHaveLength(3);
    expect((await server.call('GET', `/v1/webhook-deliveries/${after.body.data[0].id}`, { token: t.token })).status).toBe(200);
    const other = await server.factories.tenant();
    expect((await server.call('GET', `/v1/webhook-deliveries/${after.body.data[0].id}`, { token: other.token })).status).toBe(404);
    expect((await server.call('GET', '/v1/webhook-deliveries', { token: other.token })).body.data).toEqual([]);
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
      () => server.call('GET', `/v1/webhook-deliveries/${id}`, { token: t.token }),
      (r) => r.body.status === 'succeeded',
    );
    for (let n = 1; n <= 3; n++) {
      const res = await server.call('POST', `/v1/webhook-deliveries/${id}/redeliver`, { token: t.token });
      expect(res.status, res.text).toBe(202);
      expect(res.body).toMatchObject({ id, redeliveries: n });
      await receiver.waitFor(() => receiver.forPath('/again').length === n + 1);
      await until(
        () => server.call('GET', `/v1/webhook-deliveries/${id}`, { token: t.token }),
        (r) => r.body.status === 'succeeded',
      );
    }
    const all = receiver.forPath('/again');
    expect(new Set(all.map((r) => r.raw.toString())).size).toBe(1);
    expect(new Set(all.map((r) => r.headers['x-service-idempotency-key']))).toEqual(new Set([id]));
    for (const r of all) expect(verified(r.raw, r.headers, [ep.secret]).ok).toBe(true);
    const limit = await server.call('POST', `/v1/webhook-deliveries/${id}/redeliver`, { token: t.token });
    expect(limit.status).toBe(409);
    expect(limit.body.error.details.reason).toBe('redeliver_limit');
    const detail = await server.call('GET', `/v1/webhook-deliveries/${id}`, { token: t.token });
    expect(detail.body.attempts.map((a: any) => [a.number, a.redelivery])).toEqual([
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
    const early = await server.call('POST', `/v1/webhook-deliveries/${id}/redeliver`, { token: t.token });
    expect(early.status).toBe(409);
    expect(early.body.error.details.reason).toBe('delivery_not_finished');
    await until(
      () => server.call('GET', `/v1/webhook-deliveries/${id}`, { token: t.token }),
      (r) => r.body.status === 'discarded',
      30_000,
    );
    status = 200;
    expect((await server.call('POST', `/v1/webhook-deliveries/${id}/redeliver`, { token: t.token })).status).toBe(202);
    const done = await until(
      () => server.call('GET', `/v1/webhook-deliveries/${id}`, { token: t.token }),
      (r) => r.body.status === 'succeeded',
    );
    expect(done.body.attempts).toHaveLength(6);
    expect(done.body.attempts[5]).toMatchObject({ number: 6, statusCode: 200, success: true, redelivery: true });
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
      () => server.call('GET', `/v1/webhook-deliveries/${id}`, { token: t.token }),
      (r) => r.body.status === 'succeeded',
    );
    const other = await server.factories.tenant();
    expect((await server.call('POST', `/v1/webhook-deliveries/${id}/redeliver`, { token: other.token })).status).toBe(404);
    await server.call('PATCH', `/v1/webhook-endpoints/${ep.id}`, { token: t.token, body: { enabled: false } });
    const disabled = await server.call('POST', `/v1/webhook-deliveries/${id}/redeliver`, { token: t.token });
    expect(disabled.status).toBe(409);
    expect(disabled.body.error.details.reason).toBe('endpoint_disabled');
    await server.call('DELETE', `/v1/webhook-endpoints/${ep.id}`, { token: t.token });
    const deleted = await server.call('POST', `/v1/webhook-deliveries/${id}/redeliver`, { token: t.token });
    expect(deleted.status).toBe(409);
    expect(deleted.body.error.details.reason).toBe('endpoint_deleted');
    expect(receiver.forPath('/again/gone')).toHaveLength(1);
  });
});

describe('POST /webhook-endpoints/{id}/test', () => {
  it('sends one signed webhook.test with empty data at once and returns its outcome, without retries', async () => {
    const t = await server.factories.tenant();
    const ep = await endpoint(t.token, '/ping', ['task.created']);
    const res = await server.call('POST', `/v1/webhook-endpoints/${ep.id}/test`, { token: t.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ success: true, statusCode: 200, error: null, skipped: null });
    expect(res.body.durationMs).toBeGreaterThanOrEqual(0);
    const got = receiver.forPath('/ping');
    expect(got).toHaveLength(1);
    expect(got[0]!.body).toMatchObject({ id: res.body.id, type: 'webhook.test', data: {}, apiVersion: 'v1', livemode: true });
    expect(got[0]!.headers['x-service-idempotency-key']).toBe(res.body.id);
    expect(verified(got[0]!.raw, got[0]!.headers, [ep.secret]).ok).toBe(true);

    receiver.respond('/ping', 503);
    const failed = await server.call('POST', `/v1/webhook-endpoints/${ep.id}/test`, { token: t.token });
    expect(failed.body).toMatchObject({ success: false, statusCode: 503 });
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.forPath('/ping')).toHaveLength(2);
    expect(await server.ctx.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', ep.id).execute()).toEqual([]);
  });

  it('is limited per destination (5 a minute), so it cannot probe hosts in a loop; other destinations and routes still answer', async () => {
    const t = await server.factories.tenant();
    const ep = await endpoint(t.token, '/probe', ['task.created']);
    const other = await endpoint(t.token, '/probe-2', ['task.created']);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await server.call('POST', `/v1/webhook-endpoints/${ep.id}/test`, { token: t.token })).status);
    // The two test calls above may share this minute's window with the ones here: at most 5 pass.
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(5);
    expect(statuses.at(-1)).toBe(429);
    // The same id spelled in capitals is the same destination.
    const upper = await server.call('POST', `/v1/webhook-endpoints/${ep.id.toUpperCase()}/test`, { token: t.token });
    expect(upper.status).toBe(429);
    expect(upper.body.error.code).toBe('rate_limited');
    expect(Number(upper.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(receiver.forPath('/probe').length).toBeLessThanOrEqual(5);
    // Another destination, and every other route, still answer.
    expect((await server.call('POST', `/v1/webhook-endpoints/${other.id}/test`, { token: t.token })).status).toBe(200);
    expect((await server.call('GET', '/v1/webhook-endpoints', { token: t.token })).status).toBe(200);
  });
});

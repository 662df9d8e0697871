import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeSignature } from '../../../src/modules/webhooks/signing.js';
import type { Tenant } from '../../helpers/factories.js';
import type { TestServer } from '../../helpers/server.js';
import { emit, startWebhookRig, until, verified, type Receiver, type WebhookEventTypes, type WebhookRig } from './helpers.js';

let rig: WebhookRig;
let server: TestServer;
let receiver: Receiver;
let tenant: Tenant;

beforeAll(async () => {
  rig = await startWebhookRig();
  ({ server, receiver } = rig);
  tenant = await server.factories.tenant();
});
afterAll(() => rig.close());

const createEndpoint = (path: string, events: WebhookEventTypes, token = tenant.token) => rig.endpoint(token, path, events);
const delivery = (id: string, token = tenant.token) => server.api(token).call('getWebhookDelivery', { params: { path: { id } } });

describe('delivery worker', () => {
  it('delivers a signed envelope with the headers of spec 6.1', async () => {
    const ep = await createEndpoint('/basic', ['patient.created']);
    const patientId = crypto.randomUUID();
    const event = await emit(server.ctx, tenant.clinicId, 'patient.created', tenant.facilityIds[0], { id: patientId });
    await receiver.waitFor(() => receiver.forPath('/basic').length === 1);
    const r = receiver.forPath('/basic')[0]!;
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['user-agent']).toBe('Service-Webhooks/1');
    const key = r.headers['x-service-idempotency-key'] as string;
    const ts = r.headers['x-service-timestamp'] as string;
    expect(r.headers['x-service-signature']).toBe(`v1=${computeSignature(ep.secret, ts, key, r.raw)}`);
    expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(10);
    expect(Object.keys(r.body)).toEqual(['id', 'eventId', 'type', 'createdAt', 'apiVersion', 'livemode', 'facilityId', 'data']);
    expect(r.body).toMatchObject({
      id: key,
      eventId: event.id,
      type: 'patient.created',
      apiVersion: 'v1',
      livemode: true,
      facilityId: tenant.facilityIds[0],
      data: { id: patientId },
    });
    expect(verified(r.raw, r.headers, [ep.secret]).ok).toBe(true);

    const done = await until(
      () => delivery(key),
      (res) => res.status === 'succeeded',
    );
    expect(done.attempts).toHaveLength(1);
    expect(done.attempts[0]).toMatchObject({ number: 1, statusCode: 200, error: null, success: true, redelivery: false });
    expect(JSON.stringify(done)).not.toContain('never be stored');
  });
});

async function deliveriesOf(endpointId: string) {
  return server.ctx.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).orderBy('created_at').execute();
}

describe('retries, discarding and switching off', () => {
  it('retries a failing delivery with the same body and key, new timestamps, then discards it after the fifth failure', async () => {
    const ep = await createEndpoint('/failing', ['task.created']);
    receiver.respond('/failing', 500);
    await emit(server.ctx, tenant.clinicId, 'task.created', tenant.facilityIds[0]);
    await receiver.waitFor(() => receiver.forPath('/failing').length === 5);
    const got = receiver.forPath('/failing');
    const keys = new Set(got.map((r) => r.headers['x-service-idempotency-key']));
    expect(keys.size).toBe(1);
    expect(new Set(got.map((r) => r.raw.toString())).size).toBe(1);
    for (const r of got) expect(verified(r.raw, r.headers, [ep.secret]).ok).toBe(true);
    // Each attempt is signed anew (spec 6.5): the fifth comes over 3 s after the fourth, so its
    // timestamp, and with it the signature, differs.
    const stamp = (r: (typeof got)[number]) => Number(r.headers['x-service-timestamp']);
    for (let i = 1; i < got.length; i++) expect(stamp(got[i]!)).toBeGreaterThanOrEqual(stamp(got[i - 1]!));
    expect(stamp(got[4]!)).toBeGreaterThan(stamp(got[3]!));
    expect(got[4]!.headers['x-service-signature']).not.toBe(got[3]!.headers['x-service-signature']);
    // Waits of 1, 5, 15, 60 minutes scaled by 0.001 (±10%): 54-66, 270-330, 810-990, 3240-3960 ms.
    const gaps = got.slice(1).map((r, i) => r.at - got[i]!.at);
    const expected = [60, 300, 900, 3600];
    gaps.forEach((g, i) => {
      expect(g, `gap ${i + 1}`).toBeGreaterThanOrEqual(expected[i]! * 0.9 - 5);
      expect(g, `gap ${i + 1}`).toBeLessThan(expected[i]! * 1.1 + 1500);
    });
    const [d] = await until(
      () => deliveriesOf(ep.id),
      (rows) => rows[0]?.status === 'discarded',
    );
    const detail = await delivery(d!.id);
    expect(detail.status).toBe('discarded');
    expect(detail.attempts.map((a) => [a.number, a.statusCode, a.success])).toEqual([1, 2, 3, 4, 5].map((n) => [n, 500, false]));
    expect(receiver.forPath('/failing')).toHaveLength(5);
  });

  it('treats a 3xx as a failure and never follows it', async () => {
    const ep = await createEndpoint('/redirect', ['task.completed']);
    receiver.respond('/redirect', 302);
    await emit(server.ctx, tenant.clinicId, 'task.completed', tenant.facilityIds[0]);
    await receiver.waitFor(() => receiver.forPath('/redirect').length >= 2);
    const [d] = await deliveriesOf(ep.id);
    const attempts = await server.ctx.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', d!.id).orderBy('number').execute();
    expect(attempts[0]).toMatchObject({ status_code: 302, success: false, error: null });
    expect(receiver.received.filter((r) => r.path === '/elsewhere')).toHaveLength(0);
  });

  it('gives up on an answer after 10 seconds (timeout) and retries', async () => {
    const ep = await createEndpoint('/slow', ['appointment.no_show']);
    let calls = 0;
    receiver.respond('/slow', async () => {
      calls++;
      if (calls === 1) await new Promise((r) => setTimeout(r, 11_000));
      return 200;
    });
    await emit(server.ctx, tenant.clinicId, 'appointment.no_show', tenant.facilityIds[0]);
    const [d] = await until(
      () => deliveriesOf(ep.id),
      (rows) => rows[0]?.status === 'succeeded',
      30_000,
    );
    const attempts = await server.ctx.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', d!.id).orderBy('number').execute();
    expect(attempts.map((a) => [a.number, a.status_code, a.error, a.success])).toEqual([
      [1, null, 'timeout', false],
      [2, 200, null, true],
    ]);
    expect(attempts[0]!.duration_ms).toBeGreaterThanOrEqual(9_900);
    expect(attempts[0]!.duration_ms).toBeLessThan(10_900);
  }, 40_000);

  it('records the kind of network error when nothing answers', async () => {
    const t = await server.factories.tenant();
    const res = await server.api(t.token).call('createWebhookEndpoint', { body: { url: 'http://127.0.0.1:1/closed', events: ['task.created'] } });
    await emit(server.ctx, t.clinicId, 'task.created', t.facilityIds[0]);
    const rows = await until(
      () =>
        server.ctx.db
          .selectFrom('webhook_attempts as a')
          .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
          .select(['a.error', 'a.status_code'])
          .where('d.endpoint_id', '=', res.id)
          .execute(),
      (r) => r.length >= 1,
    );
    expect(rows[0]).toEqual({ error: 'connection_refused', status_code: null });
  });

  it('switches a destination off after 50 discarded deliveries in a row; a success resets the count; PATCH switches it on', async () => {
    const t = await server.factories.tenant();
    const api = server.api(t.token);
    const ep = await api.call('createWebhookEndpoint', { body: { url: receiver.url + '/fifty', events: ['lead.created'] } });
    let failing = true;
    receiver.respond('/fifty', () => (failing ? 503 : 200));
    // 49 discarded, then a success resets the count.
    await server.ctx.db.updateTable('webhook_endpoints').set({ consecutive_discarded: 49 }).where('id', '=', ep.id).execute();
    failing = false;
    await emit(server.ctx, t.clinicId, 'lead.created');
    await until(
      () => server.ctx.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', ep.id).executeTakeFirstOrThrow(),
      (r) => r.consecutive_discarded === 0,
    );
    failing = true;
    for (let i = 0; i < 50; i++) await emit(server.ctx, t.clinicId, 'lead.created');
    const off = await until(
      () => api.call('getWebhookEndpoint', { params: { path: { id: ep.id } } }),
      (r) => r.enabled === false,
      60_000,
    );
    expect(off.disabledReason).toBe('too_many_failures');
    const count = await server.ctx.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('endpoint_id', '=', ep.id)
      .where('status', '=', 'discarded')
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(50);
    // Switched off: new events do not reach it.
    const before = receiver.forPath('/fifty').length;
    await emit(server.ctx, t.clinicId, 'lead.created');
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.forPath('/fifty').length).toBe(before);
    const on = await api.call('updateWebhookEndpoint', { params: { path: { id: ep.id } }, body: { enabled: true } });
    expect(on).toMatchObject({ enabled: true, disabledReason: null });
    failing = false;
    await emit(server.ctx, t.clinicId, 'lead.created');
    await receiver.waitFor(() => receiver.forPath('/fifty').length === before + 1);
  }, 90_000);
});

describe('signatures and verification', () => {
  it('signs with both secrets during a rotation overlap and with the new one only after', async () => {
    const ep = await createEndpoint('/rotation', ['appointment.created']);
    const rotate = (overlapMinutes: number) =>
      server.api(tenant.token).call('rotateWebhookEndpointSecret', { params: { path: { id: ep.id } }, body: { overlapMinutes } });
    const rotated = await rotate(60);
    await emit(server.ctx, tenant.clinicId, 'appointment.created', tenant.facilityIds[0]);
    await receiver.waitFor(() => receiver.forPath('/rotation').length === 1);
    const r = receiver.forPath('/rotation')[0]!;
    const ts = r.headers['x-service-timestamp'] as string;
    const key = r.headers['x-service-idempotency-key'] as string;
    expect(r.headers['x-service-signature']).toBe(`v1=${computeSignature(rotated.secret, ts, key, r.raw)},v1=${computeSignature(ep.secret, ts, key, r.raw)}`);
    expect(verified(r.raw, r.headers, [ep.secret]).ok).toBe(true);
    expect(verified(r.raw, r.headers, [rotated.secret]).ok).toBe(true);

    const again = await rotate(0);
    await emit(server.ctx, tenant.clinicId, 'appointment.created', tenant.facilityIds[0]);
    await receiver.waitFor(() => receiver.forPath('/rotation').length === 2);
    const r2 = receiver.forPath('/rotation')[1]!;
    expect((r2.headers['x-service-signature'] as string).split(',')).toHaveLength(1);
    expect(verified(r2.raw, r2.headers, [again.secret]).ok).toBe(true);
    expect(verified(r2.raw, r2.headers, [rotated.secret, ep.secret])).toEqual({ ok: false, reason: 'invalid_signature' });
  });

  it('verifyWebhook refuses a stale timestamp, a changed body, a replayed signature with another timestamp', async () => {
    const ep = await createEndpoint('/verify', ['call.logged']);
    await emit(server.ctx, tenant.clinicId, 'call.logged', tenant.facilityIds[0]);
    await receiver.waitFor(() => receiver.forPath('/verify').length === 1);
    const r = receiver.forPath('/verify')[0]!;
    const ts = Number(r.headers['x-service-timestamp']);
    expect(verified(r.raw, r.headers, [ep.secret], { toleranceSeconds: 300, now: new Date((ts + 301) * 1000) })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(verified(r.raw, r.headers, [ep.secret], { toleranceSeconds: 300, now: new Date((ts - 301) * 1000) })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(verified(r.raw, r.headers, [ep.secret], { toleranceSeconds: 300, now: new Date((ts + 299) * 1000) }).ok).toBe(true);
    const tampered = Buffer.from(r.raw.toString().replace('call.logged', 'call.loggeD'));
    expect(verified(tampered, r.headers, [ep.secret]).ok).toBe(false);
    const replay = { ...r.headers, 'x-service-timestamp': String(Math.floor(Date.now() / 1000) + 1) };
    expect(verified(r.raw, replay, [ep.secret])).toEqual({ ok: false, reason: 'invalid_signature' });
    expect(verified(r.raw, {}, [ep.secret])).toEqual({ ok: false, reason: 'missing_header' });
    expect(verified(r.raw, r.headers, ['whsec_wrong']).ok).toBe(false);
  });
});

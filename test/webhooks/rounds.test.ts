/**
 * The worker's round (src/webhooks/worker.ts): outcomes recorded in batches, one statement
 * per batch. Driven by hand here (no worker running) so that one batch can hold several
 * outcomes of one destination in a chosen order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SendResult } from '../../src/webhooks/sender.js';
import { claimDeliveries, deliveryRound, type ClaimedDelivery } from '../../src/webhooks/worker.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { emit } from './helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ config: { webhookAllowInsecure: true } });
});
afterAll(() => server.close());

const ok: SendResult = { statusCode: 200, error: null, durationMs: 3, success: true };
const fail: SendResult = { statusCode: 503, error: null, durationMs: 3, success: false };

/** A destination with `n` leased deliveries, each at its last attempt (the next failure discards it). */
async function leased(n: number, consecutiveDiscarded: number): Promise<{ endpointId: string; deliveries: ClaimedDelivery[] }> {
  const t = await server.factories.tenant();
  const res = await server.call('POST', '/v1/webhook-endpoints', { token: t.token, body: { url: 'http://127.0.0.1:9/x', events: ['lead.created'] } });
  expect(res.status, res.text).toBe(201);
  const endpointId = res.body.id as string;
  for (let i = 0; i < n; i++) await emit(server.ctx, t.clinicId, 'lead.created');
  await server.ctx.db.updateTable('webhook_deliveries').set({ attempt_count: 4 }).where('endpoint_id', '=', endpointId).execute();
  await server.ctx.db.updateTable('webhook_endpoints').set({ consecutive_discarded: consecutiveDiscarded }).where('id', '=', endpointId).execute();
  const all = await claimDeliveries(server.ctx, 1000, 60_000);
  const deliveries = all.filter((d) => d.endpoint_id === endpointId).sort((a, b) => a.id.localeCompare(b.id));
  expect(deliveries).toHaveLength(n);
  return { endpointId, deliveries };
}

const endpoint = (id: string) => server.ctx.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const attempts = (endpointId: string) =>
  server.ctx.db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .select(['d.id', 'd.status', 'a.number', 'a.status_code'])
    .where('d.endpoint_id', '=', endpointId)
    .execute();

describe('recording outcomes in batches', () => {
  it('applies one destination’s outcomes in the order they finished: the threshold reached before a success still switches it off', async () => {
    const { endpointId, deliveries: [a, b, c, d] } = await leased(4, 48);
    const at = new Date();
    await deliveryRound(server.ctx, [a!, b!, c!, d!].map((x, i) => ({ delivery: x, startedAt: at, result: i === 2 ? ok : fail })), 0, 60_000, false);
    const e = await endpoint(endpointId);
    // 48 + 2 discards = 50: switched off; then the success resets, then one more discard.
    expect(e).toMatchObject({ consecutive_discarded: 1, enabled: false, disabled_reason: 'too_many_failures' });
    const rows = await attempts(endpointId);
    expect(rows).toHaveLength(4);
    expect(rows.filter((r) => r.status === 'discarded')).toHaveLength(3);
    expect(rows.filter((r) => r.status === 'succeeded')).toHaveLength(1);
    expect(new Set(rows.map((r) => r.number))).toEqual(new Set([5]));
  });

  it('a success first resets the count, so the discards after it start again from zero', async () => {
    const { endpointId, deliveries: [a, b] } = await leased(2, 49);
    const at = new Date();
    await deliveryRound(server.ctx, [{ delivery: a!, startedAt: at, result: ok }, { delivery: b!, startedAt: at, result: fail }], 0, 60_000, false);
    expect(await endpoint(endpointId)).toMatchObject({ consecutive_discarded: 1, enabled: true, disabled_reason: null });
  });

  it('drops a late outcome whose lease was retaken (fencing), and counts nothing for it', async () => {
    const { endpointId, deliveries: [a, b] } = await leased(2, 10);
    // Another worker retook `a` after its lease: its lease value changed.
    await server.ctx.db.updateTable('webhook_deliveries').set({ lease_until: new Date(Date.now() + 120_000) }).where('id', '=', a!.id).execute();
    const at = new Date();
    await deliveryRound(server.ctx, [{ delivery: a!, startedAt: at, result: fail }, { delivery: b!, startedAt: at, result: fail }], 0, 60_000, false);
    expect((await endpoint(endpointId)).consecutive_discarded).toBe(11);
    const rows = await attempts(endpointId);
    expect(rows.map((r) => r.id)).toEqual([b!.id]);
    const stillLeased = await server.ctx.db.selectFrom('webhook_deliveries').select(['status', 'attempt_count']).where('id', '=', a!.id).executeTakeFirstOrThrow();
    expect(stillLeased).toEqual({ status: 'delivering', attempt_count: 4 });
  });
});

/**
 * The worker's round (src/modules/webhooks/worker/claim-store.ts, outcome-store.ts): outcomes recorded in batches, one statement
 * per batch, driven by hand here (no worker running) so that one batch can hold several
 * outcomes of one destination in a chosen order; and the wake-up (NOTIFY or polling).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../../src/context.js';
import type { DB } from '../../../src/db/schema.js';
import { EVENTS_CHANNEL } from '../../../src/events/record.js';
import { attemptOutcome, destinationAfter } from '../../../src/modules/webhooks/policy.js';
import type { SendResult } from '../../../src/modules/webhooks/sender.js';
import { CLAIM_LOCK, claimDeliveries, deliveryRound } from '../../../src/modules/webhooks/worker/claim-store.js';
import type { ClaimedDelivery } from '../../../src/modules/webhooks/worker/outcome-store.js';
import { startDeliveryWorker } from '../../../src/modules/webhooks/worker/loop.js';
import { countingDb, type Wire } from '../../helpers/round-trips.js';
import { ENGINE, startTestServer, type TestServer } from '../../helpers/server.js';
import { emit, startReceiver } from './helpers.js';

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
  const res = await server.api(t.token).callWithResponse('createWebhookEndpoint', { body: { url: 'http://127.0.0.1:9/x', events: ['lead.created'] } });
  expect(res.response.status).toBe(201);
  const endpointId = res.data.id;
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
    const {
      endpointId,
      deliveries: [a, b, c, d],
    } = await leased(4, 48);
    const at = new Date();
    await deliveryRound(
      server.ctx,
      [a!, b!, c!, d!].map((x, i) => ({ delivery: x, startedAt: at, result: i === 2 ? ok : fail })),
      { limit: 0, leaseMs: 60_000 },
    );
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
    const {
      endpointId,
      deliveries: [a, b],
    } = await leased(2, 49);
    const at = new Date();
    await deliveryRound(
      server.ctx,
      [
        { delivery: a!, startedAt: at, result: ok },
        { delivery: b!, startedAt: at, result: fail },
      ],
      { limit: 0, leaseMs: 60_000 },
    );
    expect(await endpoint(endpointId)).toMatchObject({ consecutive_discarded: 1, enabled: true, disabled_reason: null });
  });

  it('the statement agrees with the pure policy (destinationAfter) on batches around the threshold', async () => {
    const cases: Array<{ start: number; results: boolean[] }> = [
      { start: 47, results: [false, false, false, true] },
      { start: 49, results: [true, false, false] },
      { start: 0, results: [false, true, false, false, true] },
      { start: 48, results: [false, true, false, false] },
      { start: 49, results: [false, false, true, false] },
    ];
    for (const { start, results } of cases) {
      const { endpointId, deliveries } = await leased(results.length, start);
      const at = new Date();
      await deliveryRound(
        server.ctx,
        deliveries.map((d, i) => ({ delivery: d, startedAt: at, result: results[i] ? ok : fail })),
        { limit: 0, leaseMs: 60_000 },
      );
      const expected = destinationAfter(
        { consecutiveDiscarded: start, enabled: true, disabledReason: null },
        deliveries.map((d, i) => attemptOutcome(d, results[i]!)),
      );
      const e = await endpoint(endpointId);
      expect(
        { consecutiveDiscarded: e.consecutive_discarded, enabled: e.enabled, disabledReason: e.disabled_reason },
        JSON.stringify({ start, results }),
      ).toEqual(expected);
    }
  });

  it('drops a late outcome whose lease was retaken (fencing), and counts nothing for it', async () => {
    const {
      endpointId,
      deliveries: [a, b],
    } = await leased(2, 10);
    // Another worker retook `a` after its lease: its lease value changed.
    await server.ctx.db
      .updateTable('webhook_deliveries')
      .set({ lease_until: new Date(Date.now() + 120_000) })
      .where('id', '=', a!.id)
      .execute();
    const at = new Date();
    await deliveryRound(
      server.ctx,
      [
        { delivery: a!, startedAt: at, result: fail },
        { delivery: b!, startedAt: at, result: fail },
      ],
      { limit: 0, leaseMs: 60_000 },
    );
    expect((await endpoint(endpointId)).consecutive_discarded).toBe(11);
    const rows = await attempts(endpointId);
    expect(rows.map((r) => r.id)).toEqual([b!.id]);
    const stillLeased = await server.ctx.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempt_count'])
      .where('id', '=', a!.id)
      .executeTakeFirstOrThrow();
    expect(stillLeased).toEqual({ status: 'delivering', attempt_count: 4 });
  });
});

describe('wake-up: NOTIFY at low rates, polling under load', () => {
  const notified = async (fn: () => Promise<unknown>) => {
    let count = 0;
    const stop = await server.ctx.database.listen(EVENTS_CHANNEL, () => count++);
    try {
      await fn();
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      await stop();
    }
    return count;
  };

  it('an event notifies the workers unless one has promised to poll for at least another second', async () => {
    const t = await server.factories.tenant();
    const res = await server.api(t.token).callWithResponse('createWebhookEndpoint', { body: { url: 'http://127.0.0.1:9/x', events: ['lead.created'] } });
    expect(res.response.status).toBe(201);
    const setPolling = (until: Date) => server.ctx.db.updateTable('webhook_polling').set({ polling_until: until }).execute();
    try {
      expect(await notified(() => emit(server.ctx, t.clinicId, 'lead.created'))).toBe(1);
      await setPolling(new Date(Date.now() + 10_000));
      expect(await notified(() => emit(server.ctx, t.clinicId, 'lead.created'))).toBe(0);
      // Less than a second of promise left: the transaction might commit after it, so notify.
      await setPolling(new Date(Date.now() + 500));
      expect(await notified(() => emit(server.ctx, t.clinicId, 'lead.created'))).toBe(1);
    } finally {
      await setPolling(new Date(0));
    }
  });

  // PostgreSQL only: PGlite runs every statement on this process's thread, and the emitting
  // loop below leaves the worker and the receiver too little of it to keep up.
  it.skipIf(ENGINE !== 'postgres')(
    'a worker claiming many deliveries a second promises to poll, and keeps delivering new events without NOTIFY',
    async () => {
      const receiver = await startReceiver();
      // A one-minute poll: an event is delivered within a second only by a NOTIFY or by the
      // promised polling. Busy from 20 claims a second (100 by default) so that a loaded test
      // machine reaches it.
      const worker = await startDeliveryWorker(server.ctx, { pollMs: 60_000, pollFromPerSecond: 20 });
      try {
        const tenants = await Promise.all([1, 2, 3, 4].map(() => server.factories.tenant()));
        for (const t of tenants) {
          const res = await server.api(t.token).callWithResponse('createWebhookEndpoint', { body: { url: receiver.url + '/load', events: ['lead.created'] } });
          expect(res.response.status).toBe(201);
        }
        const t = tenants[0]!;
        // Up to about 300 events a second for two seconds.
        const start = Date.now();
        for (let i = 0; Date.now() - start < 2_000; i++) {
          await Promise.all(tenants.map((x) => emit(server.ctx, x.clinicId, 'lead.created')));
          await new Promise((r) => setTimeout(r, Math.max(0, start + (i + 1) * 12 - Date.now())));
        }
        const polling = await server.ctx.db.selectFrom('webhook_polling').select('polling_until').executeTakeFirstOrThrow();
        expect(new Date(polling.polling_until).getTime()).toBeGreaterThan(Date.now() + 1_000);
        // Within the promise events do not notify, yet the next one arrives promptly.
        const sent = Date.now();
        const n = await notified(async () => {
          const last = (await emit(server.ctx, t.clinicId, 'lead.created', null)).id;
          await receiver.waitFor((all) => all.some((r) => r.body?.eventId === last), 1_000);
        });
        expect(n).toBe(0);
        expect(Date.now() - sent).toBeLessThan(1_200);
      } finally {
        await worker.stop();
        await receiver.close();
        await server.ctx.db
          .updateTable('webhook_polling')
          .set({ polling_until: new Date(0) })
          .execute();
      }
    },
    30_000,
  );
});

describe.skipIf(ENGINE !== 'postgres')('a round on PostgreSQL', () => {
  /** The server's context, its database reached through one connection that counts round trips. */
  let ctx: AppContext;
  let wire: Wire;
  beforeAll(() => {
    const counting = countingDb<DB>(server.ctx.config.databaseUrl!);
    ctx = { ...server.ctx, db: counting.db };
    wire = counting.wire;
  });
  afterAll(() => ctx.db.destroy());

  it('records the outcomes and claims in two round trips: the lock goes with BEGIN, the COMMIT with the claim', async () => {
    const { endpointId, deliveries } = await leased(2, 0);
    const t = await server.factories.tenant();
    await server.api(t.token).callWithResponse('createWebhookEndpoint', { body: { url: 'http://127.0.0.1:9/y', events: ['lead.created'] } });
    const event = await emit(server.ctx, t.clinicId, 'lead.created');
    await sql`SELECT 1`.execute(ctx.db); // the pool's connection is made before counting
    wire.roundTrips = 0;
    const at = new Date();
    const claimed = await deliveryRound(
      ctx,
      deliveries.map((delivery) => ({ delivery, startedAt: at, result: ok })),
      { limit: 100, leaseMs: 60_000 },
    );
    expect(wire.roundTrips).toBe(2);
    expect(claimed.map((d) => d.body)).toEqual(expect.arrayContaining([expect.stringContaining(event.id)]));
    // Committed: another session sees the outcomes and the claim.
    expect((await attempts(endpointId)).map((a) => a.status)).toEqual(['succeeded', 'succeeded']);
    const taken = await server.ctx.db
      .selectFrom('webhook_deliveries')
      .select('status')
      .where(
        'id',
        'in',
        claimed.map((d) => d.id),
      )
      .execute();
    expect(taken.every((d) => d.status === 'delivering')).toBe(true);
  });

  it('waits for the claim lock that another worker holds', async () => {
    let done = false;
    await server.ctx.db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(${CLAIM_LOCK}::bigint)`.execute(trx);
      void deliveryRound(ctx, [], { limit: 100, leaseMs: 60_000 }).then(() => (done = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(done).toBe(false);
    });
    await expect.poll(() => done, { timeout: 5_000 }).toBe(true);
  });
});

/** The delivery worker: claims due deliveries and sends them (see README.md beside this file). */
import { sql } from 'kysely';
import type { AppContext, Tx } from '../context.js';
import { EVENTS_CHANNEL } from '../events/record.js';
import type { Running } from '../jobs/scheduler.js';
import { createSender, type Sender, type SendResult } from './sender.js';
import { DISABLE_AFTER_DISCARDED, MAX_IN_FLIGHT_PER_CLINIC, retryDelayMs } from './schedule.js';
import { signatureHeader } from './signing.js';

/** Claims serialise on this advisory lock so the per-clinic count is exact across workers. */
const CLAIM_LOCK = 7_302_115_030;

export interface WorkerOptions {
  /** Deliveries this process sends at once (all clinics). */
  concurrency?: number;
  /** How long a claim is owned before another worker may retake it. */
  leaseMs?: number;
  /** Longest sleep without a NOTIFY. */
  pollMs?: number;
  /** After a wake-up, wait this long so that events committing together share one claim (default 1). */
  batchMs?: number;
  /** Called for every finished attempt (benchmarks, logs). */
  onAttempt?: (info: { deliveryId: string; clinicId: string; result: SendResult }) => void;
  onError?: (error: unknown) => void;
}

export interface ClaimedDelivery {
  id: string;
  clinic_id: string;
  endpoint_id: string;
  body: string;
  attempt_count: number;
  attempt_limit: number;
  redeliveries: number;
  lease_until: Date;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  enabled: boolean;
  deleted: boolean;
  key_active: boolean;
}

/**
 * One claim, in one transaction serialised by an advisory lock (so the per-clinic count
 * is exact across any number of workers):
 * 1. deliveries whose lease ran out (their worker died) go back to `pending`, still due;
 * 2. one `UPDATE ... WHERE id IN (SELECT ... FOR UPDATE SKIP LOCKED) RETURNING` takes due
 *    pending deliveries: for each clinic with pending work (walked on the partial index),
 *    at most `MAX_IN_FLIGHT_PER_CLINIC` minus its live leases, oldest first, and across
 *    clinics round-robin (every clinic's first, then every clinic's second, ...).
 */
export async function claimDeliveries(ctx: AppContext, limit: number, leaseMs: number, reclaimExpired = true): Promise<ClaimedDelivery[]> {
  // PGlite is one session in one process and runs one statement at a time: each statement
  // already sees every earlier claim, so neither the transaction nor the lock is needed there.
  if (ctx.database.engine === 'pglite') return claimStatements(ctx.db, limit, leaseMs, reclaimExpired);
  return ctx.db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${CLAIM_LOCK})`.execute(trx);
    return claimStatements(trx, limit, leaseMs, reclaimExpired);
  });
}

async function claimStatements(trx: Tx, limit: number, leaseMs: number, reclaimExpired: boolean): Promise<ClaimedDelivery[]> {
  if (reclaimExpired) {
    await sql`
      UPDATE webhook_deliveries SET status = 'pending', lease_until = NULL, updated_at = now()
      WHERE status = 'delivering' AND lease_until <= now()`.execute(trx);
  }
  const { rows } = await sql<ClaimedDelivery>`
    WITH RECURSIVE clinics AS (
      (SELECT clinic_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY clinic_id LIMIT 1)
      UNION ALL
      SELECT (SELECT w.clinic_id FROM webhook_deliveries w
              WHERE w.status = 'pending' AND w.clinic_id > c.clinic_id ORDER BY w.clinic_id LIMIT 1)
      FROM clinics c WHERE c.clinic_id IS NOT NULL
    ),
    candidates AS (
      SELECT due.id, due.rn, due.next_attempt_at
      FROM clinics c
      CROSS JOIN LATERAL (
        SELECT count(*) AS n FROM webhook_deliveries f
        WHERE f.status = 'delivering' AND f.clinic_id = c.clinic_id AND f.lease_until > now()
      ) busy
      CROSS JOIN LATERAL (
        SELECT p.id, p.next_attempt_at, row_number() OVER (ORDER BY p.next_attempt_at, p.id) AS rn
        FROM webhook_deliveries p
        WHERE p.status = 'pending' AND p.clinic_id = c.clinic_id AND p.next_attempt_at <= now()
        ORDER BY p.next_attempt_at, p.id
        LIMIT greatest(${MAX_IN_FLIGHT_PER_CLINIC} - busy.n, 0)
      ) due
      WHERE c.clinic_id IS NOT NULL
      ORDER BY due.rn, due.next_attempt_at, due.id
      LIMIT ${limit}
    )
    UPDATE webhook_deliveries d
    SET status = 'delivering', lease_until = now() + make_interval(secs => ${leaseMs / 1000}), updated_at = now()
    FROM webhook_endpoints e, api_keys k
    WHERE e.id = d.endpoint_id AND k.id = e.api_key_id
      AND d.id IN (
        SELECT x.id FROM webhook_deliveries x
        WHERE x.id IN (SELECT id FROM candidates) AND x.status = 'pending'
        FOR UPDATE SKIP LOCKED
      )
    RETURNING d.id, d.clinic_id, d.endpoint_id, d.body, d.attempt_count, d.attempt_limit, d.redeliveries, d.lease_until,
              e.url, e.secret, e.previous_secret, e.previous_secret_expires_at, e.enabled,
              (e.deleted_at IS NOT NULL) AS deleted,
              (k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())) AS key_active`.execute(trx);
  return rows;
}

/** Secrets that sign now: the current one, and the previous one during a rotation's overlap. */
export function signingSecrets(d: Pick<ClaimedDelivery, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>, now: Date): string[] {
  const secrets = [d.secret];
  if (d.previous_secret && d.previous_secret_expires_at && new Date(d.previous_secret_expires_at).getTime() > now.getTime()) {
    secrets.push(d.previous_secret);
  }
  return secrets;
}

/** Headers of spec 6.1 for one attempt (content-type and user-agent are added by the sender). */
export function deliveryHeaders(deliveryId: string, body: string, secrets: string[], now: Date): Record<string, string> {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  return {
    'x-service-signature': signatureHeader(secrets, timestamp, deliveryId, body),
    'x-service-timestamp': timestamp,
    'x-service-idempotency-key': deliveryId,
  };
}

/** Finishes a claimed delivery without sending it (its destination or key no longer allows it). */
async function finishUnsent(ctx: AppContext, d: ClaimedDelivery, reason: string): Promise<void> {
  await ctx.db
    .updateTable('webhook_deliveries')
    .set({ status: 'discarded', skipped_reason: reason, finished_at: sql`now()`, lease_until: null, updated_at: sql`now()` })
    .where('id', '=', d.id)
    .where('status', '=', 'delivering')
    .where('lease_until', '=', d.lease_until)
    .execute();
}

/**
 * Records an attempt's outcome. The lease value of the claim is a fencing token: if the
 * lease ran out and another worker retook the delivery, this worker's late result is dropped.
 */
export async function recordAttempt(
  ctx: AppContext,
  d: ClaimedDelivery,
  startedAt: Date,
  result: SendResult,
  handoff: { leaseMs: number } | null = null,
): Promise<ClaimedDelivery | null> {
  const number = d.attempt_count + 1;
  const final = !result.success && number >= d.attempt_limit;
  const status = result.success ? 'succeeded' : final ? 'discarded' : 'pending';
  const nextAt = result.success || final ? new Date() : new Date(Date.now() + retryDelayMs(number, ctx.config.webhookRetryScale));
  // Only the scheduled life of a delivery counts towards switching off; a failed manual redelivery does not.
  const countDiscard = final && d.redeliveries === 0;
  // One statement: the delivery, its attempt and the destination's count change together or not
  // at all. With `handoff`, the same statement also claims the clinic's next due delivery: the
  // slot passes from one delivery to the next, so the clinic's in-flight count cannot grow.
  const { rows } = await sql`
    WITH upd AS (
      UPDATE webhook_deliveries SET
        status = ${status}, attempt_count = ${number}, lease_until = NULL, next_attempt_at = ${nextAt},
        finished_at = ${status === 'pending' ? null : sql`now()`}, updated_at = now()
      WHERE id = ${d.id} AND status = 'delivering' AND lease_until = ${d.lease_until}
      RETURNING id
    ),
    att AS (
      INSERT INTO webhook_attempts (id, delivery_id, number, started_at, duration_ms, status_code, error, success, redelivery)
      SELECT ${crypto.randomUUID()}, upd.id, ${number}, ${startedAt}, ${result.durationMs}, ${result.statusCode}::int,
             ${result.error}::text, ${result.success}, ${d.redeliveries > 0}
      FROM upd
      RETURNING 1
    ),
    ep AS (
      UPDATE webhook_endpoints SET
        consecutive_discarded = CASE WHEN ${result.success} THEN 0 ELSE consecutive_discarded + 1 END,
        enabled = CASE WHEN NOT ${result.success} AND consecutive_discarded + 1 >= ${DISABLE_AFTER_DISCARDED} THEN false ELSE enabled END,
        disabled_reason = CASE WHEN NOT ${result.success} AND consecutive_discarded + 1 >= ${DISABLE_AFTER_DISCARDED} AND enabled
                               THEN 'too_many_failures' ELSE disabled_reason END,
        updated_at = CASE WHEN ${result.success} THEN updated_at ELSE now() END
      WHERE id = ${d.endpoint_id} AND EXISTS (SELECT 1 FROM upd)
        AND ((${result.success} AND consecutive_discarded <> 0) OR ${countDiscard})
      RETURNING 1
    ),
    nxt AS (
      UPDATE webhook_deliveries n
      SET status = 'delivering', lease_until = now() + make_interval(secs => ${(handoff?.leaseMs ?? 0) / 1000}), updated_at = now()
      WHERE ${handoff !== null} AND EXISTS (SELECT 1 FROM upd)
        AND n.id = (
          SELECT q.id FROM webhook_deliveries q
          WHERE q.status = 'pending' AND q.clinic_id = ${d.clinic_id} AND q.next_attempt_at <= now()
          ORDER BY q.next_attempt_at, q.id
          LIMIT 1
          FOR UPDATE SKIP LOCKED
        )
      RETURNING n.id, n.clinic_id, n.endpoint_id, n.body, n.attempt_count, n.attempt_limit, n.redeliveries, n.lease_until
    )
    SELECT nxt.*, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at, e.enabled,
           (e.deleted_at IS NOT NULL) AS deleted,
           (k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())) AS key_active,
           (SELECT count(*) FROM att) AS attempts, (SELECT count(*) FROM ep) AS endpoints
    FROM nxt
    JOIN webhook_endpoints e ON e.id = nxt.endpoint_id
    JOIN api_keys k ON k.id = e.api_key_id`.execute(ctx.db);
  return (rows[0] as ClaimedDelivery | undefined) ?? null;
}

export async function startDeliveryWorker(ctx: AppContext, options: WorkerOptions = {}): Promise<Running> {
  const concurrency = options.concurrency ?? 64;
  const leaseMs = options.leaseMs ?? 15_000;
  const pollMs = options.pollMs ?? Math.min(1000, Math.max(50, 60_000 * ctx.config.webhookRetryScale));
  const onError = options.onError ?? (() => {});
  const sender: Sender = createSender({ allowInsecure: ctx.config.webhookAllowInsecure }, { connections: concurrency });
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let wakeUp: (() => void) | null = null;
  let pendingWake = false;
  let lastReclaim = 0;
  const batchMs = options.batchMs ?? 1;

  const kick = () => {
    pendingWake = true;
    wakeUp?.();
  };
  /** Resolves true when woken by a kick, false after `ms` without one. */
  const sleep = (ms: number) =>
    new Promise<boolean>((resolve) => {
      if (pendingWake || stopped) return resolve(false);
      const timer = setTimeout(() => done(false), ms);
      function done(kicked: boolean) {
        clearTimeout(timer);
        wakeUp = null;
        resolve(kicked);
      }
      wakeUp = () => done(true);
    });

  const deliverOne = async (d: ClaimedDelivery): Promise<ClaimedDelivery | null> => {
    if (d.deleted) return void (await finishUnsent(ctx, d, 'endpoint_deleted')), null;
    if (!d.enabled) return void (await finishUnsent(ctx, d, 'endpoint_disabled')), null;
    if (!d.key_active) return void (await finishUnsent(ctx, d, 'key_inactive')), null;
    const now = new Date();
    const headers = deliveryHeaders(d.id, d.body, signingSecrets(d, now), now);
    const result = await sender.send(d.url, d.body, headers);
    // Hand the clinic's slot straight to its next due delivery only while this worker has
    // room to spare, so that a busy clinic never keeps other clinics waiting for a slot.
    const handoff = !stopped && inFlight.size <= concurrency / 2 ? { leaseMs } : null;
    const next = await recordAttempt(ctx, d, now, result, handoff);
    options.onAttempt?.({ deliveryId: d.id, clinicId: d.clinic_id, result });
    return next;
  };
  const deliver = async (first: ClaimedDelivery) => {
    let d: ClaimedDelivery | null = first;
    while (d) d = await deliverOne(d);
  };

  const unlisten = await ctx.database.listen(EVENTS_CHANNEL, kick);

  const loop = async () => {
    while (!stopped) {
      pendingWake = false;
      const room = concurrency - inFlight.size;
      let claimed: ClaimedDelivery[] = [];
      if (room > 0) {
        try {
          // Expired leases are looked for at most every 500 ms: they only matter after a crash.
          const reclaim = Date.now() - lastReclaim >= 500;
          if (reclaim) lastReclaim = Date.now();
          claimed = await claimDeliveries(ctx, room, leaseMs, reclaim);
        } catch (error) {
          if (!stopped) onError(error);
        }
      }
      for (const d of claimed) {
        const p: Promise<void> = deliver(d)
          .catch((error) => onError(error))
          .finally(() => {
            inFlight.delete(p);
            kick(); // a clinic slot is free again
          });
        inFlight.add(p);
      }
      if (claimed.length === room && room > 0) continue;
      const woken = await sleep(pollMs);
      // Woken by a commit: wait a moment so that events committing together share one claim.
      if (woken && batchMs > 0 && !stopped) await new Promise((r) => setTimeout(r, batchMs));
    }
  };
  const running = loop();

  return {
    async stop() {
      stopped = true;
      wakeUp?.();
      await unlisten().catch(() => {});
      await running;
      await Promise.allSettled([...inFlight]);
      await sender.close().catch(() => {});
    },
  };
}

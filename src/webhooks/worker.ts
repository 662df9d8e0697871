/** The delivery worker: in rounds, records finished attempts and claims due deliveries, then sends them (see README.md beside this file). */
import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import type { Db } from '../db/transaction.js';
import { keepListening } from '../db/listener.js';
import { EVENTS_CHANNEL } from '../events/record.js';
import type { Running } from '../jobs/scheduler.js';
import { createSender, type Sender, type SendResult } from './sender.js';
import { DISABLE_AFTER_DISCARDED, MAX_IN_FLIGHT_PER_CLINIC, retryDelayMs } from './schedule.js';
import { signatureHeader } from './signing.js';
import { keyActive } from '../modules/auth/active-key.js';

/** Claims serialise on this advisory lock so the per-clinic count is exact across workers. */
const CLAIM_LOCK = 7_302_115_030;

export interface WorkerOptions {
  /** Deliveries this process sends at once (all clinics). */
  concurrency?: number;
  /** How long a claim is owned before another worker may retake it. */
  leaseMs?: number;
  /** Longest sleep without a NOTIFY. */
  pollMs?: number;
  /**
   * Shortest time between the starts of two rounds (record outcomes + claim), default 10 ms:
   * under load the events and outcomes of those milliseconds share one transaction. (At 500
   * events/s, 10 ms against 5 ms took a fifth off the worker's PostgreSQL CPU for 2-3 ms more
   * median latency; 20 ms saved less again for 8 ms more.)
   */
  roundMs?: number;
  /**
   * From this many deliveries claimed per second (default 100) the worker promises to poll,
   * so that events stop sending a NOTIFY each (README beside this file, invariant 5).
   */
  pollFromPerSecond?: number;
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

/** A delivery that was sent (or tried) and whose outcome is waiting for the next round. */
export interface FinishedAttempt {
  delivery: ClaimedDelivery;
  startedAt: Date;
  result: SendResult;
}

export interface RoundOptions {
  /** Deliveries to claim at most (0: record only). */
  limit: number;
  leaseMs: number;
  /** Put deliveries whose lease ran out back to `pending` first. */
  reclaimExpired?: boolean;
  /** Promise to look for deliveries without a NOTIFY for this long (see `startDeliveryWorker`). */
  promisePollingMs?: number;
}

/**
 * One round of the worker, in one transaction serialised by an advisory lock (so the
 * per-clinic count is exact across any number of workers):
 * 1. the outcomes of the attempts finished since the last round are recorded (one statement
 *    for the whole batch, `recordStatement`): their slots are free again;
 * 2. (with `reclaimExpired`) deliveries whose lease ran out (their worker died) go back to
 *    `pending`, still due;
 * 3. (with `promisePollingMs`) `webhook_polling` is moved on, so events stop notifying;
 * 4. one `UPDATE ... WHERE id IN (SELECT ... FOR UPDATE SKIP LOCKED) RETURNING` takes due
 *    pending deliveries: for each clinic with pending work (walked on the partial index),
 *    at most `MAX_IN_FLIGHT_PER_CLINIC` minus its live leases, oldest first, and across
 *    clinics round-robin (every clinic's first, then every clinic's second, ...).
 * Recording and claiming together cost one transaction per round rather than statements per
 * delivery, and a clinic's freed slot is refilled in the same transaction that frees it.
 */
export async function deliveryRound(ctx: AppContext, finished: FinishedAttempt[], options: RoundOptions): Promise<ClaimedDelivery[]> {
  // PGlite is one session in one process and runs one statement at a time: each statement
  // already sees every earlier claim, so neither the transaction nor the lock is needed there
  // (and the batch's outcomes are recorded by one statement, atomic on its own).
  if (ctx.database.engine === 'pglite') return roundStatements(ctx, ctx.db, finished, options);
  return ctx.db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${CLAIM_LOCK})`.execute(trx);
    return roundStatements(ctx, trx, finished, options);
  });
}

/** A claim alone (no outcome to record). */
export function claimDeliveries(ctx: AppContext, limit: number, leaseMs: number, reclaimExpired = true): Promise<ClaimedDelivery[]> {
  return deliveryRound(ctx, [], { limit, leaseMs, reclaimExpired });
}

async function roundStatements(ctx: AppContext, trx: Db, finished: FinishedAttempt[], options: RoundOptions): Promise<ClaimedDelivery[]> {
  const { limit, leaseMs, reclaimExpired = false, promisePollingMs = 0 } = options;
  if (finished.length > 0) await recordStatement(ctx, finished).execute(trx);
  if (reclaimExpired) {
    await sql`
      UPDATE webhook_deliveries SET status = 'pending', lease_until = NULL, updated_at = now()
      WHERE status = 'delivering' AND lease_until <= now()`.execute(trx);
  }
  if (promisePollingMs > 0) {
    await sql`
      UPDATE webhook_polling SET polling_until = greatest(polling_until, now() + make_interval(secs => ${promisePollingMs / 1000}))`.execute(trx);
  }
  if (limit <= 0) return [];
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
              ${keyActive('k')} AS key_active`.execute(trx);
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
 * One statement that records a batch of outcomes, in the order the attempts finished. The
 * lease value of each claim is a fencing token: a delivery is updated only
 * `WHERE status = 'delivering' AND lease_until = <our lease>`, so if the lease ran out and
 * another worker retook it, this worker's late result is dropped. Delivery rows, attempt rows
 * and destination counters change in this one statement, and only for the deliveries whose
 * fence held.
 *
 * Destination counters, per destination, as if the outcomes were applied one by one: a
 * success resets `consecutive_discarded`, a scheduled delivery discarded after its last
 * attempt adds one, and the destination is switched off when the count reaches
 * `DISABLE_AFTER_DISCARDED`. The batch's outcomes of one destination are split into runs of
 * discards by its successes (`seg` = successes so far): the count ends at the last run if
 * there was a success (`after`), else at the old count plus the first run (`before`); the
 * threshold is reached by the first run on top of the old count, or by any later run alone.
 */
function recordStatement(ctx: AppContext, finished: FinishedAttempt[]) {
  const cols = {
    id: [] as string[],
    lease: [] as string[],
    status: [] as string[],
    number: [] as number[],
    nextAt: [] as string[],
    attemptId: [] as string[],
    startedAt: [] as string[],
    durationMs: [] as number[],
    statusCode: [] as (number | null)[],
    error: [] as (string | null)[],
    success: [] as boolean[],
    redelivery: [] as boolean[],
    countDiscard: [] as boolean[],
  };
  for (const { delivery: d, startedAt, result } of finished) {
    const number = d.attempt_count + 1;
    const final = !result.success && number >= d.attempt_limit;
    const status = result.success ? 'succeeded' : final ? 'discarded' : 'pending';
    const nextAt = result.success || final ? new Date() : new Date(Date.now() + retryDelayMs(number, ctx.config.webhookRetryScale));
    cols.id.push(d.id);
    cols.lease.push(new Date(d.lease_until).toISOString());
    cols.status.push(status);
    cols.number.push(number);
    cols.nextAt.push(nextAt.toISOString());
    cols.attemptId.push(crypto.randomUUID());
    cols.startedAt.push(startedAt.toISOString());
    cols.durationMs.push(result.durationMs);
    cols.statusCode.push(result.statusCode);
    cols.error.push(result.error);
    cols.success.push(result.success);
    cols.redelivery.push(d.redeliveries > 0);
    // Only the scheduled life of a delivery counts towards switching off; a failed manual redelivery does not.
    cols.countDiscard.push(final && d.redeliveries === 0);
  }
  return sql`
    WITH r AS (
      SELECT * FROM unnest(${cols.id}::uuid[], ${cols.lease}::timestamptz[], ${cols.status}::text[], ${cols.number}::int[],
                           ${cols.nextAt}::timestamptz[], ${cols.attemptId}::uuid[], ${cols.startedAt}::timestamptz[],
                           ${cols.durationMs}::int[], ${cols.statusCode}::int[], ${cols.error}::text[], ${cols.success}::bool[],
                           ${cols.redelivery}::bool[], ${cols.countDiscard}::bool[])
        WITH ORDINALITY AS r(id, lease, status, number, next_at, attempt_id, started_at, duration_ms, status_code, error,
                             success, redelivery, count_discard, ord)
    ),
    upd AS (
      UPDATE webhook_deliveries d SET
        status = r.status, attempt_count = r.number, lease_until = NULL, next_attempt_at = r.next_at,
        finished_at = CASE WHEN r.status = 'pending' THEN NULL ELSE now() END, updated_at = now()
      FROM r
      WHERE d.id = r.id AND d.status = 'delivering' AND d.lease_until = r.lease
      RETURNING d.id, d.endpoint_id
    ),
    att AS (
      INSERT INTO webhook_attempts (id, delivery_id, number, started_at, duration_ms, status_code, error, success, redelivery)
      SELECT r.attempt_id, r.id, r.number, r.started_at, r.duration_ms, r.status_code, r.error, r.success, r.redelivery
      FROM r JOIN upd ON upd.id = r.id
    ),
    runs AS (
      SELECT endpoint_id, seg, count(*) FILTER (WHERE count_discard) AS n
      FROM (
        SELECT upd.endpoint_id, r.count_discard, sum(r.success::int) OVER (PARTITION BY upd.endpoint_id ORDER BY r.ord) AS seg
        FROM r JOIN upd ON upd.id = r.id
        WHERE r.success OR r.count_discard
      ) x
      GROUP BY endpoint_id, seg
    ),
    agg AS (
      SELECT endpoint_id, max(seg) > 0 AS reset,
             coalesce(sum(n) FILTER (WHERE seg = 0), 0) AS before,
             (array_agg(n ORDER BY seg DESC))[1] AS after,
             coalesce(max(n) FILTER (WHERE seg > 0), 0) AS later_max,
             sum(n) AS discards
      FROM runs GROUP BY endpoint_id
    )
    UPDATE webhook_endpoints e SET
      consecutive_discarded = CASE WHEN a.reset THEN a.after ELSE e.consecutive_discarded + a.before END,
      enabled = CASE WHEN (a.before > 0 AND e.consecutive_discarded + a.before >= ${DISABLE_AFTER_DISCARDED})
                       OR a.later_max >= ${DISABLE_AFTER_DISCARDED} THEN false ELSE e.enabled END,
      disabled_reason = CASE WHEN ((a.before > 0 AND e.consecutive_discarded + a.before >= ${DISABLE_AFTER_DISCARDED})
                                   OR a.later_max >= ${DISABLE_AFTER_DISCARDED}) AND e.enabled
                             THEN 'too_many_failures' ELSE e.disabled_reason END,
      updated_at = CASE WHEN a.discards > 0 THEN now() ELSE e.updated_at END
    FROM agg a
    WHERE e.id = a.endpoint_id AND (a.discards > 0 OR e.consecutive_discarded <> 0)`;
}

/** Most outcomes recorded by one round's statement (more wait for the next round, which follows at once). */
const RECORD_BATCH_MAX = 500;
/** Each promise to poll lasts this long; it is renewed while the rate holds. Events skip their NOTIFY while at least 1 s of it is left. */
const POLL_PROMISE_MS = 3_000;

export async function startDeliveryWorker(ctx: AppContext, options: WorkerOptions = {}): Promise<Running> {
  const concurrency = options.concurrency ?? 64;
  const leaseMs = options.leaseMs ?? 15_000;
  const pollMs = options.pollMs ?? Math.min(1000, Math.max(50, 60_000 * ctx.config.webhookRetryScale));
  const roundMs = options.roundMs ?? 10;
  const pollFromPerSecond = options.pollFromPerSecond ?? 100;
  const onError = options.onError ?? (() => {});
  const sender: Sender = createSender({ allowInsecure: ctx.config.webhookAllowInsecure }, { connections: concurrency });
  /** Sends under way (claimed, no outcome yet). */
  const inFlight = new Set<Promise<void>>();
  /** Outcomes waiting for the next round. Until it commits their deliveries stay leased, so a crash here costs a second send, never a lost one. */
  let finished: FinishedAttempt[] = [];
  let stopped = false;
  let wakeUp: (() => void) | null = null;
  let pendingWake = false;
  let lastReclaim = 0;
  let lastRound = 0;
  /** Until then (this process's clock) the worker looks every `roundMs` whatever happens: it promised to in `webhook_polling`. */
  let pollingUntil = 0;
  let claimedInWindow = 0;
  let windowStart = Date.now();
  let busy = false;

  const kick = () => {
    pendingWake = true;
    wakeUp?.();
  };
  /** Resolves after `ms`, or earlier on a kick. */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (pendingWake || stopped) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = done;
    });

  const send = async (d: ClaimedDelivery) => {
    if (d.deleted) return finishUnsent(ctx, d, 'endpoint_deleted');
    if (!d.enabled) return finishUnsent(ctx, d, 'endpoint_disabled');
    if (!d.key_active) return finishUnsent(ctx, d, 'key_inactive');
    const startedAt = new Date();
    const headers = deliveryHeaders(d.id, d.body, signingSecrets(d, startedAt), startedAt);
    const result = await sender.send(d.url, d.body, headers);
    finished.push({ delivery: d, startedAt, result });
  };

  /** Records what finished, then claims as many deliveries as there is room for and starts sending them. */
  const round = async (claim: boolean) => {
    const batch = finished.slice(0, RECORD_BATCH_MAX);
    finished = finished.slice(batch.length);
    const room = claim ? concurrency - inFlight.size : 0;
    if (batch.length === 0 && room <= 0) return;
    const now = Date.now();
    // Expired leases are looked for at most every 500 ms: they only matter after a crash.
    const reclaimExpired = claim && now - lastReclaim >= 500;
    if (reclaimExpired) lastReclaim = now;
    // Busy (the last full second claimed at least `pollFromPerSecond`): renew the promise to
    // poll before less than 2 s of it is left, so events keep skipping their NOTIFY.
    if (now - windowStart >= 1000) {
      busy = (claimedInWindow * 1000) / (now - windowStart) >= pollFromPerSecond;
      claimedInWindow = 0;
      windowStart = now;
    }
    const promise = claim && busy && pollingUntil - now < POLL_PROMISE_MS - 1000;
    let claimed: ClaimedDelivery[] = [];
    try {
      claimed = await deliveryRound(ctx, batch, { limit: room, leaseMs, reclaimExpired, promisePollingMs: promise ? POLL_PROMISE_MS : 0 });
    } catch (error) {
      // The batch's outcomes are lost with the transaction: their deliveries stay leased and
      // are sent again once the lease runs out (at least once, same idempotency key).
      if (!stopped) onError(error);
      return;
    }
    // The database's promise runs from its transaction's start, before this moment: counting
    // from now keeps this process polling at least as long as it promised.
    if (promise) pollingUntil = Date.now() + POLL_PROMISE_MS;
    claimedInWindow += claimed.length;
    for (const d of claimed) {
      const p: Promise<void> = send(d)
        .catch((error) => onError(error))
        .finally(() => {
          inFlight.delete(p);
          kick(); // an outcome to record, and a slot free again
        });
      inFlight.add(p);
    }
  };

  // NOTIFY wakes the loop at once. If the listening connection breaks, it listens again and
  // then looks once: notifications sent meanwhile were missed. Until then the loop still looks
  // every `pollMs`.
  const listener = await keepListening(ctx.database, EVENTS_CHANNEL, { onMessage: kick, onDown: onError, onUp: kick });

  const loop = async () => {
    while (!stopped) {
      // Under load, rounds start at most every `roundMs`: the events and outcomes that came in
      // meanwhile share one transaction. After a quiet spell the round starts at once.
      const wait = lastRound + roundMs - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pendingWake = false;
      lastRound = Date.now();
      await round(true);
      if (finished.length > 0 || stopped) continue;
      // While the promise to poll lasts, events do not notify: look again after `roundMs`.
      if (Date.now() < pollingUntil) continue;
      await sleep(pollMs);
    }
    // Stopping: no more claims; the sends under way finish and their outcomes are recorded.
    await Promise.allSettled([...inFlight]);
    while (finished.length > 0) await round(false);
  };
  const running = loop();

  return {
    async stop() {
      stopped = true;
      wakeUp?.();
      await listener.stop();
      await running;
      await sender.close().catch(() => {});
    },
  };
}

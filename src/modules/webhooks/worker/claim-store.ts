/**
 * The worker's round, in one transaction: record the outcomes that finished (`outcome-store.ts`),
 * put expired leases back, then claim due deliveries fairly across clinics (README.md beside
 * the module, invariants 1, 3 and 4).
 */
import { sql, type RawBuilder } from 'kysely';
import type { AppContext } from '../../../context.js';
import type { Db } from '../../../db/transaction.js';
import { keyActive } from '../../../db/active-key.js';
import { WITH_BEGIN_MARK } from '../../../db/pg-client.js';
import { prepared } from '../../../db/prepared-statements.js';
import { thenCommit } from '../../../db/then-commit.js';
import { MAX_IN_FLIGHT_PER_CLINIC } from '../policy.js';
import { recordStatement, type ClaimedDelivery, type FinishedAttempt } from './outcome-store.js';

/** Claims serialise on this advisory lock so the per-clinic count is exact across workers. */
export const CLAIM_LOCK = 7_302_115_030;

interface RoundOptions {
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
 *
 * On PostgreSQL a busy round is two round trips: the lock goes out with BEGIN and the first
 * statement (WITH_BEGIN_MARK), and the last statement carries the COMMIT (thenCommit). The
 * outcomes' statement is a named prepared statement. The claim is not: a generic plan is made
 * without the round's LIMIT, and it served bench:webhooks' fairness part worse than a plan made
 * for each round's values (docs/performance.md).
 */
export async function deliveryRound(ctx: AppContext, finished: FinishedAttempt[], options: RoundOptions): Promise<ClaimedDelivery[]> {
  // PGlite is one session in one process and runs one statement at a time: each statement
  // already sees every earlier claim, so neither the transaction nor the lock is needed there
  // (and the batch's outcomes are recorded by one statement, atomic on its own).
  if (ctx.database.engine === 'pglite') return roundStatements(ctx, ctx.db, finished, options);
  return ctx.db.transaction().execute(async (trx) => {
    // A kept statement returns no row (pg-client.ts), hence the WHERE: a void cast to text is ''.
    await sql`SELECT WHERE pg_advisory_xact_lock(${CLAIM_LOCK}::bigint)::text IS NULL ${sql.raw(WITH_BEGIN_MARK)}`.execute(trx);
    return roundStatements(ctx, trx, finished, options);
  });
}

/** A claim alone (no outcome to record). */
export function claimDeliveries(ctx: AppContext, limit: number, leaseMs: number, reclaimExpired = true): Promise<ClaimedDelivery[]> {
  return deliveryRound(ctx, [], { limit, leaseMs, reclaimExpired });
}

/** The round's statements in order; the last carries the COMMIT (a comment on PGlite, which has no transaction here). */
async function roundStatements(ctx: AppContext, trx: Db, finished: FinishedAttempt[], options: RoundOptions): Promise<ClaimedDelivery[]> {
  const { limit, leaseMs, reclaimExpired = false, promisePollingMs = 0 } = options;
  const statements: RawBuilder<unknown>[] = [];
  if (finished.length > 0) statements.push(prepared(recordStatement(ctx, finished)));
  if (reclaimExpired) {
    statements.push(sql`
      UPDATE webhook_deliveries SET status = 'pending', lease_until = NULL, updated_at = now()
      WHERE status = 'delivering' AND lease_until <= now()`);
  }
  if (promisePollingMs > 0) {
    statements.push(sql`
      UPDATE webhook_polling SET polling_until = greatest(polling_until, now() + make_interval(secs => ${promisePollingMs / 1000}))`);
  }
  if (limit > 0) statements.push(claimStatement(limit, leaseMs));
  const last = statements.pop();
  for (const statement of statements) await statement.execute(trx);
  if (!last) return [];
  const { rows } = await thenCommit(last).execute(trx);
  return limit > 0 ? (rows as ClaimedDelivery[]) : [];
}

/** Takes up to `limit` due deliveries, fairly across clinics (step 4 above). */
function claimStatement(limit: number, leaseMs: number): RawBuilder<ClaimedDelivery> {
  return sql<ClaimedDelivery>`
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
              e.url, e.secret, e.previous_secret, e.previous_secret_expires_at, e.signature_scheme, e.enabled,
              (e.deleted_at IS NOT NULL) AS deleted,
              ${keyActive('k')} AS key_active`;
}

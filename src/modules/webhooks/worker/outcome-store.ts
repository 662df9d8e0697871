/**
 * What a finished attempt changes, recorded for a whole batch in one statement: the delivery
 * (succeeded, retried or discarded), its attempt row, and its destination's count of
 * discarded deliveries in a row. The rules are the pure functions of `../policy.ts`; this is
 * their SQL (test/modules/webhooks/rounds.test.ts holds one against the other).
 */
import { sql } from 'kysely';
import type { AppContext } from '../../../context.js';
import { attemptOutcome, DISABLE_AFTER_DISCARDED, retryDelayMs } from '../policy.js';
import type { SendResult } from '../sender.js';
import type { SignatureScheme } from '../../../db/tables/webhooks.js';

/** A delivery as a claim returns it (`claim-store.ts`): the row, its destination and whether the creating key is active. */
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
  signature_scheme: SignatureScheme;
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

/** Finishes a claimed delivery without sending it (its destination or key no longer allows it). */
export async function finishUnsent(ctx: AppContext, d: ClaimedDelivery, reason: string): Promise<void> {
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
export function recordStatement(ctx: AppContext, finished: FinishedAttempt[]) {
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
    const { number, status, countsAsDiscard } = attemptOutcome(d, result.success);
    const nextAt = status === 'pending' ? new Date(Date.now() + retryDelayMs(number, ctx.config.webhookRetryScale)) : new Date();
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
    cols.countDiscard.push(countsAsDiscard);
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

/**
 * Fan-out (spec 6.3): an event becomes one delivery per destination that may receive it,
 * inserted in the event's own transaction. A destination receives an event when:
 * - it is enabled, not deleted, and subscribed to the event's type (for `events.skipped`:
 *   to its `data.type`);
 * - the key that created it is active now (not revoked, not expired), has `webhooks:read`
 *   and the event's scope (for `events.skipped`: the scope of `data.type`);
 * - the key sees the event's facility. An event without a facility reaches only keys
 *   not limited to facilities, except `events.skipped`, which carries no data and reaches
 *   limited keys too (it only tells them to resynchronise).
 * A test clinic's deliveries are recorded already finished, `succeeded` with
 * `skippedReason: test_mode` and no attempt: nothing leaves a test clinic (spec 1.4).
 */
import { sql, type RawBuilder } from 'kysely';
import type { Transaction } from '../db/transaction.js';
import { prepared } from '../db/prepared-statements.js';

export interface FanOutEvent {
  id: string;
  clinicId: string;
  type: string;
  scope: string;
  facilityId: string | null;
  createdAt: Date;
  dataText: string;
  subscriptionType: string;
  notifyChannel: string;
  /** Insert only when the clinic has an active key and no `no_active_key` gap waiting (recordEvent). */
  checkKeys: boolean;
}

/**
 * The envelope of spec 6.2 as sent, after `{"id":"<delivery id>",`, around its `livemode`
 * (the clinic's mode, read by the insert); `data` keeps the bytes stored with the event.
 */
function envelope(event: FanOutEvent): { head: string; tail: string } {
  const head =
    `"eventId":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},` +
    `"createdAt":${JSON.stringify(event.createdAt.toISOString())},"apiVersion":"v1","livemode":`;
  const tail = `,"facilityId":${JSON.stringify(event.facilityId)},"data":${event.dataText}}`;
  return { head, tail };
}

export type FanOutOutcome = 'inserted' | 'held' | 'no_clinic' | { error: string };

/**
 * Inserts the event and its deliveries, and notifies the workers when a live delivery was
 * created and no worker is polling already: one call of `record_event` (migration 0105, where
 * the SQL is), one round trip. Returns `inserted`; `held` when the clinic has no active key or a
 * gap to record first (nothing inserted: `checkKeys`); `no_clinic` when the clinic does not
 * exist; `{ error }` when the insert failed: the function's EXCEPTION block undid it, and the
 * caller's transaction is still usable (the savepoint it used to set and release itself).
 */
export async function fanOut(trx: Transaction, event: FanOutEvent): Promise<FanOutOutcome> {
  const { rows } = await prepared(sql<{ outcome: string }>`SELECT ${recordEventCall(event)} AS outcome`).execute(trx);
  return fanOutOutcome(rows[0]!.outcome);
}

/**
 * The call of `record_event` that fans the event out, as an expression: fanOut runs it alone,
 * and a creation's own statement may run it in its select list (recordEventIn, src/events/record.ts).
 */
export function recordEventCall(event: FanOutEvent): RawBuilder<string> {
  const { head, tail } = envelope(event);
  return sql<string>`record_event(
      ${event.id}::uuid, ${event.clinicId}::uuid, ${event.type}::text, ${event.scope}::text, ${event.facilityId}::uuid,
      ${event.createdAt}::timestamptz, ${event.dataText}::text, ${event.subscriptionType}::text, ${event.notifyChannel}::text,
      ${event.checkKeys}::boolean, ${head}::text, ${tail}::text)`;
}

/** What `record_event` answered, read. */
export function fanOutOutcome(outcome: string): FanOutOutcome {
  if (outcome === 'inserted' || outcome === 'held' || outcome === 'no_clinic') return outcome;
  return { error: outcome.replace(/^error: /, '') };
}

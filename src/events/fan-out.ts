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
import { sql, type Expression } from 'kysely';
import type { Transaction } from '../db/transaction.js';
import { keyActive } from '../modules/auth/active-key.js';

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

/** The envelope of spec 6.2 as sent, after `{"id":"<delivery id>",`; `data` keeps the bytes stored with the event. */
function envelopeTail(event: FanOutEvent): Expression<string> {
  const head =
    `"eventId":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},` +
    `"createdAt":${JSON.stringify(event.createdAt.toISOString())},"apiVersion":"v1","livemode":`;
  const tail = `,"facilityId":${JSON.stringify(event.facilityId)},"data":${event.dataText}}`;
  return sql<string>`${head} || CASE WHEN ev.livemode THEN 'true' ELSE 'false' END || ${tail}`;
}

/**
 * Inserts the event and its deliveries in one statement, and notifies the workers when a
 * live delivery was created and no worker is polling already. Returns `inserted`; `held` when the
 * clinic has no active key or a gap to record first (nothing inserted: `checkKeys`); `no_clinic`
 * when the clinic does not exist.
 */
export async function fanOut(trx: Transaction, event: FanOutEvent): Promise<'inserted' | 'held' | 'no_clinic'> {
  const skipped = event.type === 'events.skipped';
  const keysOk = event.checkKeys
    ? sql`EXISTS (SELECT 1 FROM api_keys WHERE clinic_id = ${event.clinicId} AND ${keyActive()})
          AND NOT EXISTS (SELECT 1 FROM event_gaps WHERE clinic_id = ${event.clinicId})`
    : sql`true`;
  const { rows } = await sql<{ inserted: boolean; clinic: boolean }>`
    WITH ev AS (
      INSERT INTO events (id, clinic_id, type, facility_id, scope, livemode, data, created_at)
      SELECT ${event.id}, c.id, ${event.type}, ${event.facilityId}::uuid, ${event.scope}, c.mode = 'live', ${event.dataText}::jsonb, ${event.createdAt}
      FROM clinics c WHERE c.id = ${event.clinicId} AND ${keysOk}
      RETURNING livemode
    ),
    targets AS (
      SELECT gen_random_uuid() AS id, e.id AS endpoint_id
      FROM webhook_endpoints e
      JOIN api_keys k ON k.id = e.api_key_id
      WHERE e.clinic_id = ${event.clinicId}
        AND e.deleted_at IS NULL AND e.enabled
        AND ${event.subscriptionType}::text = ANY(e.events)
        AND ${keyActive('k')}
        AND 'webhooks:read' = ANY(k.scopes) AND ${event.scope}::text = ANY(k.scopes)
        AND (k.facility_ids IS NULL
             OR ${event.facilityId}::uuid = ANY(k.facility_ids)
             OR (${skipped} AND ${event.facilityId}::uuid IS NULL))
    ),
    del AS (
      INSERT INTO webhook_deliveries (id, clinic_id, endpoint_id, event_id, event_type, body, status, skipped_reason, finished_at, next_attempt_at)
      SELECT t.id, ${event.clinicId}, t.endpoint_id, ${event.id}, ${event.type},
             '{"id":"' || t.id::text || '",' || ${envelopeTail(event)},
             CASE WHEN ev.livemode THEN 'pending' ELSE 'succeeded' END,
             CASE WHEN ev.livemode THEN NULL ELSE 'test_mode' END,
             CASE WHEN ev.livemode THEN NULL ELSE now() END,
             now()
      FROM targets t, ev
      RETURNING status
    )
    SELECT EXISTS (SELECT 1 FROM ev) AS inserted,
           EXISTS (SELECT 1 FROM clinics WHERE id = ${event.clinicId}) AS clinic,
           -- No NOTIFY while a worker has promised to keep looking for at least another second
           -- (0031_webhook_polling.sql): this transaction commits within that second, as a rule,
           -- and a later commit is still found by the workers' regular look (at most a second).
           CASE WHEN EXISTS (SELECT 1 FROM del WHERE status = 'pending')
                 AND NOT EXISTS (SELECT 1 FROM webhook_polling WHERE polling_until > clock_timestamp() + interval '1 second')
                THEN pg_notify(${event.notifyChannel}, ${event.clinicId}) END AS notified`.execute(trx);
  const row = rows[0];
  if (row?.inserted) return 'inserted';
  return row?.clinic ? 'held' : 'no_clinic';
}

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
import { sql } from 'kysely';
import type { Tx } from '../context.js';

export interface FanOutEvent {
  id: string;
  clinicId: string;
  type: string;
  scope: string;
  facilityId: string | null;
  livemode: boolean;
  createdAt: Date;
  dataText: string;
  subscriptionType: string;
}

/** The envelope of spec 6.2 as sent: `id` (the delivery id) first, then the event's fields. */
export function envelopeTail(event: Omit<FanOutEvent, 'clinicId' | 'scope' | 'subscriptionType'>): string {
  // Built by hand so `data` keeps the exact bytes stored with the event.
  return (
    `"eventId":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},` +
    `"createdAt":${JSON.stringify(event.createdAt.toISOString())},"apiVersion":"v1",` +
    `"livemode":${event.livemode},"facilityId":${JSON.stringify(event.facilityId)},"data":${event.dataText}}`
  );
}

export async function fanOut(trx: Tx, event: FanOutEvent): Promise<number> {
  const tail = envelopeTail(event);
  const skipped = event.type === 'events.skipped';
  const live = event.livemode;
  const result = await sql`
    INSERT INTO webhook_deliveries (id, clinic_id, endpoint_id, event_id, event_type, body, status, skipped_reason, finished_at, next_attempt_at)
    SELECT t.id, ${event.clinicId}, t.endpoint_id, ${event.id}, ${event.type},
           '{"id":"' || t.id::text || '",' || ${tail},
           ${live ? 'pending' : 'succeeded'}, ${live ? null : 'test_mode'},
           ${live ? null : sql`now()`}, now()
    FROM (
      SELECT gen_random_uuid() AS id, e.id AS endpoint_id
      FROM webhook_endpoints e
      JOIN api_keys k ON k.id = e.api_key_id
      WHERE e.clinic_id = ${event.clinicId}
        AND e.deleted_at IS NULL AND e.enabled
        AND ${event.subscriptionType}::text = ANY(e.events)
        AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())
        AND 'webhooks:read' = ANY(k.scopes) AND ${event.scope}::text = ANY(k.scopes)
        AND (k.facility_ids IS NULL
             OR ${event.facilityId}::uuid = ANY(k.facility_ids)
             OR (${skipped} AND ${event.facilityId}::uuid IS NULL))
    ) t`.execute(trx);
  return Number(result.numAffectedRows ?? 0n);
}

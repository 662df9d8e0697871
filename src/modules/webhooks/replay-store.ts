/**
 * The SQL of a replay: one statement that finds the events of a time range the
 * destination would receive now, by the fan-out's rules (src/events/fan-out.ts: subscribed type,
 * or `data.type` for `events.skipped`; the creating key's `webhooks:read` and the event's scope;
 * its facilities), and inserts one new delivery per event, unless more than `limit` match.
 * Events whose delivery to this destination is still pending or being sent are counted, not
 * queued again, so the same range twice does not double the work still waiting.
 */
import { sql } from 'kysely';
import type { Db } from '../../db/transaction.js';
import { EVENTS_CHANNEL } from '../../events/record.js';

interface ReplayRange {
  clinicId: string;
  endpointId: string;
  from: Date;
  to: Date;
  limit: number;
}

/** What the statement did: every outcome the service has to tell apart. */
type ReplayOutcome =
  { kind: 'queued'; queued: number; alreadyPending: number } | { kind: 'too_many'; limit: number } | { kind: 'key_inactive' } | { kind: 'not_found' };

/** One statement, so no transaction of its own: it inserts all of its deliveries or none. */
export async function insertReplayDeliveries(db: Db, r: ReplayRange): Promise<ReplayOutcome> {
  const { rows } = await sql<{ active: boolean; found: boolean; too_many: boolean; queued: number | string; already_pending: number | string }>`
    WITH dest AS (
      SELECT e.id, e.events, k.scopes, k.facility_ids
      FROM webhook_endpoints e JOIN api_keys k ON k.id = e.api_key_id
      WHERE e.id = ${r.endpointId}::uuid AND e.clinic_id = ${r.clinicId}::uuid AND e.deleted_at IS NULL
        AND api_key_active(k.revoked_at, k.expires_at)
    ),
    matching AS (
      SELECT ev.id, ev.type, ev.facility_id, ev.created_at, ev.api_version, ev.livemode, ev.data
      FROM events ev, dest
      WHERE ev.clinic_id = ${r.clinicId}::uuid
        AND ev.created_at >= ${r.from}::timestamptz AND ev.created_at < ${r.to}::timestamptz
        AND (CASE WHEN ev.type = 'events.skipped' THEN ev.data->>'type' ELSE ev.type END) = ANY(dest.events)
        AND 'webhooks:read' = ANY(dest.scopes) AND ev.scope = ANY(dest.scopes)
        AND (dest.facility_ids IS NULL OR ev.facility_id = ANY(dest.facility_ids)
             OR (ev.type = 'events.skipped' AND ev.facility_id IS NULL))
      ORDER BY ev.created_at, ev.id
      LIMIT ${r.limit + 1}
    ),
    too_many AS (SELECT count(*) > ${r.limit} AS v FROM matching),
    fresh AS (
      SELECT gen_random_uuid() AS did, m.*
      FROM matching m
      WHERE NOT (SELECT v FROM too_many)
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                        WHERE d.event_id = m.id AND d.endpoint_id = ${r.endpointId}::uuid AND d.status IN ('pending', 'delivering'))
    ),
    ins AS (
      INSERT INTO webhook_deliveries (id, clinic_id, endpoint_id, event_id, event_type, body, status, skipped_reason, finished_at, next_attempt_at)
      SELECT f.did, ${r.clinicId}::uuid, ${r.endpointId}::uuid, f.id, f.type,
             -- The envelope of spec 6.2 as the fan-out writes it; data as stored (the same JSON).
             '{"id":"' || f.did::text || '","eventId":"' || f.id::text || '","type":' || to_json(f.type)::text ||
             ',"createdAt":"' || to_char(f.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') ||
             '","apiVersion":' || to_json(f.api_version)::text || ',"livemode":' || CASE WHEN f.livemode THEN 'true' ELSE 'false' END ||
             ',"facilityId":' || COALESCE(to_json(f.facility_id)::text, 'null') || ',"data":' || f.data::text || '}',
             CASE WHEN f.livemode THEN 'pending' ELSE 'succeeded' END,
             CASE WHEN f.livemode THEN NULL ELSE 'test_mode' END,
             CASE WHEN f.livemode THEN NULL ELSE now() END,
             now()
      FROM fresh f
      RETURNING status
    ),
    notified AS (
      SELECT pg_notify(${EVENTS_CHANNEL}, ${r.clinicId}::text) FROM (SELECT 1 FROM ins WHERE status = 'pending' LIMIT 1) x
    )
    SELECT EXISTS (SELECT 1 FROM dest) AS active,
           EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ${r.endpointId}::uuid AND clinic_id = ${r.clinicId}::uuid AND deleted_at IS NULL) AS found,
           (SELECT v FROM too_many) AS too_many,
           (SELECT count(*) FROM ins) + 0 * (SELECT count(*) FROM notified) AS queued,
           (SELECT count(*) FROM matching) - (SELECT count(*) FROM fresh) AS already_pending`.execute(db);
  const row = rows[0]!;
  if (!row.found) return { kind: 'not_found' };
  if (!row.active) return { kind: 'key_inactive' };
  if (row.too_many) return { kind: 'too_many', limit: r.limit };
  return { kind: 'queued', queued: Number(row.queued), alreadyPending: Number(row.already_pending) };
}

/**
 * The SQL of the webhooks' periodic jobs and of the queue's metrics: the deliveries' retention
 * deletes in batches, the clinics whose event gaps can be flushed, the deliveries counted by status and the
 * due queue. The jobs' schedule is jobs.ts's, the gauges metrics.ts's.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { keyActive } from '../../db/active-key.js';

/** The most rows one retention DELETE removes (the job repeats it until fewer are left). */
export const PURGE_BATCH = 5000;

/** Deletes up to PURGE_BATCH deliveries finished, or of a destination deleted, over `days` ago. */
export async function deleteOldDeliveries(db: Kysely<DB>, days: number): Promise<number> {
  const r = await sql`DELETE FROM webhook_deliveries WHERE id IN (
      SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE (d.finished_at IS NOT NULL AND d.finished_at < now() - make_interval(days => ${days}))
         OR (e.deleted_at IS NOT NULL AND e.deleted_at < now() - make_interval(days => ${days}))
      LIMIT ${PURGE_BATCH})`.execute(db);
  return Number(r.numAffectedRows ?? 0n);
}

/** Deletes the destinations deleted over `days` ago that have no delivery left; answers how many. */
export async function deleteOldEndpoints(db: Kysely<DB>, days: number): Promise<number> {
  const r = await sql`DELETE FROM webhook_endpoints e
    WHERE e.deleted_at IS NOT NULL AND e.deleted_at < now() - make_interval(days => ${days})
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = e.id)`.execute(db);
  return Number(r.numAffectedRows ?? 0n);
}

/** The clinics with recorded event gaps that have an active key again. */
export async function clinicsWithFlushableGaps(db: Kysely<DB>): Promise<string[]> {
  const { rows } = await sql<{ clinic_id: string }>`
    SELECT DISTINCT g.clinic_id FROM event_gaps g
    WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.clinic_id = g.clinic_id AND ${keyActive('k')})`.execute(db);
  return rows.map((r) => r.clinic_id);
}

/** The deliveries counted by status (statuses with none are absent). */
export function countDeliveriesByStatus(db: Kysely<DB>): Promise<{ status: string; n: number }[]> {
  return db
    .selectFrom('webhook_deliveries')
    .select(['status', sql<number>`count(*)::int`.as('n')])
    .groupBy('status')
    .execute();
}

/** The pending deliveries due now and how long (seconds) the oldest has waited (null when none). */
export function dueQueue(db: Kysely<DB>): Promise<{ depth: number; age: number | null }> {
  return db
    .selectFrom('webhook_deliveries')
    .select([sql<number>`count(*)::int`.as('depth'), sql<number | null>`extract(epoch from now() - min(next_attempt_at))::float8`.as('age')])
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', sql<Date>`now()`)
    .executeTakeFirstOrThrow();
}

/**
 * Periodic jobs of the events and webhooks engine. Each is safe in several processes at
 * once (deletes are idempotent; gap flushing deletes its rows with RETURNING, so one process wins).
 * Idempotency records (24 h) are purged by the foundation's `purge-idempotency-keys` job.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { flushGaps } from '../../events/record.js';
import type { Job } from '../../jobs/scheduler.js';
import { RETENTION_DAYS } from './deliveries.js';
import { keyActive } from '../../db/active-key.js';

const BATCH = 5000;

async function deleteInBatches(run: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await run();
    total += n;
    if (n < BATCH) return total;
  }
}

export interface RetentionResult {
  events: number;
  deliveries: number;
  endpoints: number;
}

/** Events older than 30 days, finished deliveries older than 30 days, destinations deleted over 30 days ago. */
export async function purgeWebhookData(db: Kysely<DB>, days = RETENTION_DAYS): Promise<RetentionResult> {
  const events = await deleteInBatches(async () => {
    const r = await sql`DELETE FROM events WHERE id IN (
      SELECT id FROM events WHERE created_at < now() - make_interval(days => ${days}) LIMIT ${BATCH})`.execute(db);
    return Number(r.numAffectedRows ?? 0n);
  });
  const deliveries = await deleteInBatches(async () => {
    const r = await sql`DELETE FROM webhook_deliveries WHERE id IN (
      SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE (d.finished_at IS NOT NULL AND d.finished_at < now() - make_interval(days => ${days}))
         OR (e.deleted_at IS NOT NULL AND e.deleted_at < now() - make_interval(days => ${days}))
      LIMIT ${BATCH})`.execute(db);
    return Number(r.numAffectedRows ?? 0n);
  });
  const r = await sql`DELETE FROM webhook_endpoints e
    WHERE e.deleted_at IS NOT NULL AND e.deleted_at < now() - make_interval(days => ${days})
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = e.id)`.execute(db);
  return { events, deliveries, endpoints: Number(r.numAffectedRows ?? 0n) };
}

/** Records the `no_active_key` gaps of clinics that have an active key again (spec 6.4). */
export async function flushEventGaps(db: Kysely<DB>): Promise<number> {
  const { rows } = await sql<{ clinic_id: string }>`
    SELECT DISTINCT g.clinic_id FROM event_gaps g
    WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.clinic_id = g.clinic_id AND ${keyActive('k')})`.execute(db);
  let total = 0;
  for (const { clinic_id } of rows) {
    total += await db.transaction().execute((trx) => flushGaps(trx, clinic_id));
  }
  return total;
}

export function webhookJobs(): Job[] {
  return [
    { name: 'purge-webhook-data', everyMs: 60 * 60_000, run: (ctx) => purgeWebhookData(ctx.db) },
    { name: 'flush-event-gaps', everyMs: 30_000, run: (ctx) => flushEventGaps(ctx.db) },
  ];
}

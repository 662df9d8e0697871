/**
 * Periodic jobs of the events and webhooks engine. Each is safe in several processes at
 * once (deletes are idempotent; gap flushing deletes its rows with RETURNING, so one process wins).
 * Idempotency records (24 h) are purged by the foundation's `purge-idempotency-keys` job, and
 * events, partitioned by month, by the `partitions` job (src/jobs/partitions.ts).
 */
import type { Db } from '../../db/transaction.js';
import { flushGaps } from '../../events/record.js';
import type { Job } from '../../jobs/scheduler.js';
import { RETENTION_DAYS } from './deliveries.js';
import { clinicsWithFlushableGaps, deleteOldDeliveries, deleteOldEndpoints, PURGE_BATCH } from './jobs-store.js';

/** Repeats a batch DELETE until a batch removes fewer than PURGE_BATCH rows; answers the total. */
async function deleteInBatches(run: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await run();
    total += n;
    if (n < PURGE_BATCH) return total;
  }
}

interface RetentionResult {
  deliveries: number;
  endpoints: number;
}

/** Deliveries finished over 30 days ago, or of a destination deleted over 30 days ago, then the destinations themselves. */
export async function purgeWebhookData(db: Db, days = RETENTION_DAYS): Promise<RetentionResult> {
  const deliveries = await deleteInBatches(() => deleteOldDeliveries(db, days));
  return { deliveries, endpoints: await deleteOldEndpoints(db, days) };
}

/** Records the `no_active_key` gaps of clinics that have an active key again (spec 6.4). */
export async function flushEventGaps(db: Db): Promise<number> {
  let total = 0;
  for (const clinicId of await clinicsWithFlushableGaps(db)) {
    total += await db.transaction().execute((trx) => flushGaps(trx, clinicId));
  }
  return total;
}

export function webhookJobs(): Job[] {
  return [
    { name: 'purge-webhook-data', everyMs: 60 * 60_000, run: (ctx) => purgeWebhookData(ctx.db) },
    { name: 'flush-event-gaps', everyMs: 30_000, run: (ctx) => flushEventGaps(ctx.db) },
  ];
}

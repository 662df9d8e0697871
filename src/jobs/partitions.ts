/**
 * The `partitions` job (docs/operations.md, "Partitioned tables"): keeps each table partitioned
 * by month with its current month and the next MONTHS_AHEAD made, and drops the months wholly
 * older than the table's retention, which the operator sets (src/config.ts `retention`).
 * Safe in several processes at once: making months is serialized in SQL (migration 0135) and a
 * month already dropped is skipped.
 */
import type { RetentionConfig } from '../config.js';
import { createMonthPartitions, dropMonthPartition, monthPartitionsBefore, type PartitionedTable } from '../db/partitions.js';
import type { Db } from '../db/transaction.js';
import { purgeUnnamedLists } from '../modules/access-log/index.js';
import type { Job } from './scheduler.js';

/** Months made after the current one: a month boundary finds its partition even after this many months of failed runs. */
export const MONTHS_AHEAD = 2;

interface Partitioned {
  table: PartitionedTable;
  retentionDays: number;
  /** Runs after months of the table were dropped. */
  afterDrop?: (db: Db) => Promise<unknown>;
}

/** The tables partitioned by month, each with its retention. */
export function partitionedTables(retention: RetentionConfig): Partitioned[] {
  return [
    // The lists of resources are shared by entries of any month: those no entry names go after a drop.
    { table: 'access_log', retentionDays: retention.accessLogDays, afterDrop: purgeUnnamedLists },
    { table: 'events', retentionDays: retention.eventsDays },
  ];
}

interface PartitionsResult {
  created: number;
  dropped: string[];
  /** Tables whose months could not be made, and months past retention that could not be dropped, for want of the lock (tried again next run). */
  deferred: string[];
}

/** One run at `now` (a parameter so a test can place it anywhere in time). */
export async function maintainPartitions(db: Db, tables: Partitioned[], now = new Date()): Promise<PartitionsResult> {
  const result: PartitionsResult = { created: 0, dropped: [], deferred: [] };
  const ahead = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + MONTHS_AHEAD, 1));
  for (const t of tables) {
    const created = await createMonthPartitions(db, t.table, now, ahead);
    if (created === null) result.deferred.push(t.table);
    else result.created += created;
    const before = new Date(now.getTime() - t.retentionDays * 86_400_000);
    let dropped = 0;
    for (const partition of await monthPartitionsBefore(db, t.table, before)) {
      if (await dropMonthPartition(db, partition)) {
        result.dropped.push(partition);
        dropped++;
      } else {
        result.deferred.push(partition);
      }
    }
    if (dropped > 0 && t.afterDrop) await t.afterDrop(db);
  }
  return result;
}

export function partitionJobs(): Job[] {
  return [{ name: 'partitions', everyMs: 60 * 60_000, run: (ctx) => maintainPartitions(ctx.db, partitionedTables(ctx.config.retention)) }];
}

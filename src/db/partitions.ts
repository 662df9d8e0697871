/**
 * The SQL of the tables partitioned by month (docs/operations.md, "Partitioned tables"; the
 * naming and bounds are migration 0135's functions): the months made ahead, and a month dropped
 * whole. Which tables, and how long each keeps its rows, is the `partitions` job's
 * (src/jobs/partitions.ts).
 *
 * Making a partition and dropping one each take their table's strongest lock for an instant.
 * Waiting for it behind a long query would hold up every request queued behind the wait, so both
 * wait at most `lockTimeoutMs` and otherwise give up (the job's next run tries again).
 */
import { sql } from 'kysely';
import { hasSqlState, SQLSTATE } from './errors.js';
import type { Db, Transaction } from './transaction.js';

/** The tables partitioned by month. */
export type PartitionedTable = 'access_log' | 'events';

/** `work` in a transaction whose waits for a lock end after `lockTimeoutMs`; null when one did. */
async function withLockTimeout<T>(db: Db, lockTimeoutMs: number, work: (trx: Transaction) => Promise<T>): Promise<T | null> {
  try {
    return await db.transaction().execute(async (trx) => {
      await sql`SELECT set_config('lock_timeout', ${`${lockTimeoutMs}ms`}, true)`.execute(trx);
      return work(trx);
    });
  } catch (error) {
    if (hasSqlState(error, SQLSTATE.lockNotAvailable)) return null;
    throw error;
  }
}

/**
 * Creates the missing months of `table` from the month of `from` through the month of `to`;
 * answers how many, or null when the lock could not be had.
 */
export function createMonthPartitions(db: Db, table: PartitionedTable, from: Date, to: Date, lockTimeoutMs = 1000): Promise<number | null> {
  return withLockTimeout(db, lockTimeoutMs, async (trx) => {
    const { rows } = await sql<{ n: number }>`SELECT create_month_partitions(${table}, ${from}::timestamptz, ${to}::timestamptz) AS n`.execute(trx);
    return Number(rows[0]!.n);
  });
}

/** The months of `table` that end at or before `before`, oldest first. */
export async function monthPartitionsBefore(db: Db, table: PartitionedTable, before: Date): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`SELECT month_partitions_before(${table}, ${before}::timestamptz) AS name`.execute(db);
  return rows.map((r) => r.name);
}

/** Drops one month (a name from monthPartitionsBefore); false when the lock could not be had. */
export async function dropMonthPartition(db: Db, partition: string, lockTimeoutMs = 1000): Promise<boolean> {
  const done = await withLockTimeout(db, lockTimeoutMs, async (trx) => {
    await sql`DROP TABLE IF EXISTS ${sql.id(partition)}`.execute(trx);
    return true;
  });
  return done ?? false;
}

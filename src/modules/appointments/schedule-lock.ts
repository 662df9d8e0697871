/**
 * Serializes, until they commit, the transactions that may put appointments on the same
 * doctor's or chair's schedule. The overlap constraints (migration 0020) alone make exactly one
 * of conflicting writes win, but on PostgreSQL two inserts that each find the other's
 * uncommitted row while checking an exclusion constraint wait for each other: a deadlock, seen
 * with 20 parallel bookings of one slot on a loaded machine (each loser answered 500 after the
 * 1-second deadlock timeout, instead of 409 at once). Holding these locks, a write that conflicts
 * waits for the earlier one to commit, then fails its constraint at once: 409.
 * The ids are locked in one order, so the locks themselves cannot deadlock. On PGlite (one
 * session) they are taken at once.
 */
import { sql } from 'kysely';
import type { Tx } from '../../context.js';

export async function lockSchedules(trx: Tx, resourceIds: (string | null | undefined)[]): Promise<void> {
  const ids = [...new Set(resourceIds.filter((id): id is string => !!id).map((id) => id.toLowerCase()))].sort();
  if (ids.length === 0) return;
  // unnest yields the ids in the array's (sorted) order, and each lock is taken as its row is.
  await sql`SELECT pg_advisory_xact_lock(hashtextextended('schedule:' || id, 0)) FROM unnest(${ids}::text[]) AS id`.execute(trx);
}

/**
 * The access log's SQL: the writer's one statement per batch, the clinic's entries newest first,
 * and the retention's sweep of the lists of resources no entry names any more.
 */
import { sql, type Insertable } from 'kysely';
import type { AccessLogResourcesTable, AccessLogTable } from '../../db/tables/core.js';
import type { Db } from '../../db/transaction.js';

export type AccessLogInsert = Insertable<AccessLogTable>;

/**
 * One statement (one commit): the batch's rows, with the lists of resources they name that may
 * not be stored yet (a list already there is left as it is). A list named but neither stored
 * nor sent is a foreign key violation, thrown to the writer.
 */
export async function insertEntries(db: Db, rows: AccessLogInsert[], lists: AccessLogResourcesTable[]): Promise<void> {
  if (lists.length === 0) {
    await db.insertInto('access_log').values(rows).execute();
    return;
  }
  await db
    .with('stored_lists', (db) =>
      db
        .insertInto('access_log_resources')
        .values(lists)
        .onConflict((oc) => oc.column('id').doNothing()),
    )
    .insertInto('access_log')
    .values(rows)
    .execute();
}

/** The clinic's entries, newest first, before a point; optionally only the reads of one resource. */
export async function entriesOf(db: Db, clinicId: string, filter: { resourceId?: string; limit: number; before?: { at: string; id: string } }) {
  let q = db.selectFrom('access_log_entries').selectAll().where('clinic_id', '=', clinicId);
  if (filter.resourceId) q = q.where(sql<boolean>`resource_ids @> ARRAY[${filter.resourceId}]::uuid[]`);
  // The bound on `at` alone lets PostgreSQL skip the months after the cursor (it prunes
  // partitions on a plain comparison of the key, not on a row comparison).
  if (filter.before) {
    q = q
      .where(sql<boolean>`at <= ${filter.before.at}::timestamptz`)
      .where(sql<boolean>`(at, id) < (${filter.before.at}::timestamptz, ${filter.before.id}::uuid)`);
  }
  return q.orderBy('at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
}

/**
 * Deletes, among the next `chunk` stored lists after `after` (in id order), those no entry of the
 * log names; answers how many it deleted and the last id it looked at (null: none left).
 * A list an entry names meanwhile is kept by the foreign key (the statement fails, and the caller
 * looks at the chunk again); one a writer remembers and no longer finds is written again by the writer.
 */
export async function deleteUnnamedLists(db: Db, after: string | null, chunk: number): Promise<{ deleted: number; last: string | null }> {
  const from = after === null ? sql`true` : sql`id > ${after}::uuid`;
  const { rows } = await sql<{ deleted: number; last: string | null }>`
    WITH looked AS (
      SELECT id FROM access_log_resources WHERE ${from} ORDER BY id LIMIT ${chunk}
    ), gone AS (
      DELETE FROM access_log_resources r USING looked
      WHERE r.id = looked.id AND NOT EXISTS (SELECT 1 FROM access_log l WHERE l.resources_id = r.id)
      RETURNING 1
    )
    SELECT (SELECT count(*)::int FROM gone) AS deleted, (SELECT id FROM looked ORDER BY id DESC LIMIT 1) AS last`.execute(db);
  return rows[0]!;
}

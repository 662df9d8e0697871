/** The access log's SQL: the writer's one statement per batch, and the clinic's entries newest first. */
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
  if (filter.before) q = q.where(sql<boolean>`(at, id) < (${filter.before.at}::timestamptz, ${filter.before.id}::uuid)`);
  return q.orderBy('at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
}

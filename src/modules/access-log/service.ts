/**
 * The access log (spec 1.6, 2.1): every read of free text or clinical data is recorded
 * before the response is sent. One row per read request, naming every resource returned
 * (table access_log, with the list of resources stored once in access_log_resources; the view
 * access_log_entries joins them).
 * Rows are written by the context's `AccessLogWriter` (./writer.ts, group commit):
 * `await ctx.accessLog.record(auth, record)`.
 */
import type { Db } from '../../db/transaction.js';
import type { AccessLogEntry } from './schema.js';
import { hasSqlState, SQLSTATE } from '../../db/errors.js';
import { deleteUnnamedLists, entriesOf } from './store.js';

/** One read request's entry. */
export interface AccessRecord {
  resourceType: string;
  /** Not changed once recorded: the writer remembers the id of each array of ids it saw. */
  resourceIds: readonly string[];
  fields: string[];
  requestId?: string;
}

/** The clinic's access log, newest first; optionally only the reads of one resource. */
export async function listAccessLog(
  db: Db,
  clinicId: string,
  filter: { resourceId?: string; limit: number; before?: { at: string; id: string } },
): Promise<AccessLogEntry[]> {
  const rows = await entriesOf(db, clinicId, filter);
  return rows.map((r) => ({
    id: r.id,
    apiKeyId: r.api_key_id,
    requestId: r.request_id,
    resourceType: r.resource_type,
    resourceIds: r.resource_ids,
    fields: r.fields,
    at: r.at.toISOString(),
  }));
}

/**
 * After months of the log were dropped (the `partitions` job): deletes the stored lists of
 * resources that no remaining entry names, walking the table in chunks; answers how many.
 * A chunk in which a writer named one of its lists meanwhile fails on the foreign key: it is
 * looked at again (the new entry is then seen, and its list kept), at most three times.
 */
export async function purgeUnnamedLists(db: Db, chunk = 5000): Promise<number> {
  let total = 0;
  let after: string | null = null;
  let failed = 0;
  for (;;) {
    let step: { deleted: number; last: string | null };
    try {
      step = await deleteUnnamedLists(db, after, chunk);
    } catch (error) {
      if (!hasSqlState(error, SQLSTATE.foreignKeyViolation) || ++failed >= 3) throw error;
      continue;
    }
    failed = 0;
    total += step.deleted;
    if (step.last === null) return total;
    after = step.last;
  }
}

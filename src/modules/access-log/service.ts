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
import { entriesOf } from './store.js';

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

/**
 * The access log's writer: group commit. A read request must not answer before its entry is
 * committed (spec 1.6), but one INSERT per request means one commit, hence one WAL flush, per
 * read, and that flush was the main database cost of the list and detail routes. Here the
 * entries of concurrent requests share one multi-row INSERT (one statement, one commit), and
 * each request still awaits the commit of the statement that holds its entry.
 *
 * At most one flush runs at a time. The first entry starts a flush at the end of the event
 * loop's turn (so entries recorded in the same turn join it); entries that arrive while it runs
 * wait and the next flush takes them all, up to `maxRows` per statement. So under no load an
 * entry costs what it cost before, and under load the number of commits follows the database's
 * speed rather than the number of requests. On PGlite (one session) it works the same and
 * means fewer statements waiting on the session.
 *
 * A failed flush rejects the promise of every entry in it with the database's error, so each
 * of those requests fails as it did when it ran its own INSERT: nothing is dropped silently.
 * (The rows of one statement stand or fall together; an entry holds only ids and field names
 * the server produced, so no entry is expected to fail on its own content.)
 *
 * Each entry names its resources by the id of their list (./resources.ts). The lists this
 * process has not yet seen committed are written by the same statement, in a CTE, with
 * `ON CONFLICT DO NOTHING`; a page read again costs one small row. Should a list it remembers
 * be gone from the table (emptied or restored by hand), the foreign key refuses the statement,
 * and the batch is written again with every one of its lists.
 *
 * Never await `record` inside a transaction: the entry is written on the root connection, not
 * in the transaction (it would stay even if the transaction rolled back), and on PGlite the
 * transaction holds the one session, so the flush would wait for the transaction that waits
 * for the flush. Every call site records after its reads, outside any transaction.
 */
import { randomUUID } from 'node:crypto';
import { hasSqlState, SQLSTATE } from '../../db/errors.js';
import type { AccessLogResourcesTable } from '../../db/tables/core.js';
import type { Db } from '../../db/transaction.js';
import { ResourcesIds, StoredLists } from './resources.js';
import type { AccessRecord } from './service.js';
import { insertEntries, type AccessLogInsert } from './store.js';

interface Pending {
  row: AccessLogInsert;
  /** What `row.resources_id` names. */
  resourceType: string;
  resourceIds: readonly string[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface AccessLogStats {
  /** INSERT statements run (each one commit), failed ones included. */
  flushes: number;
  /** Entries committed. */
  rows: number;
  /** Flushes that failed. */
  failures: number;
}

class AccessLogClosedError extends Error {
  constructor() {
    super('the access log writer is closed');
  }
}

/** Who read: an `Actor` is one (its request id is used when the record names none). */
interface AccessLogActor {
  clinicId: string;
  keyId: string | null;
  requestId?: string;
}

export class AccessLogWriter {
  readonly stats: AccessLogStats = { flushes: 0, rows: 0, failures: 0 };
  private queue: Pending[] = [];
  private running: Promise<void> | null = null;
  private closed = false;
  private readonly stored = new StoredLists();
  private readonly resourcesIds = new ResourcesIds();

  /**
   * `maxRows` caps one statement: 500 entries (a row and a list each) stay far below PostgreSQL's
   * 65,535 bind parameters (at most 10 per entry) and keep one statement's work short.
   */
  constructor(
    private readonly db: Db,
    private readonly maxRows = 500,
  ) {}

  /**
   * Resolves once the entry is committed; rejects with the database's error when the
   * statement holding it failed. A read naming no resource or no field is not logged.
   */
  record(auth: AccessLogActor, record: AccessRecord): Promise<void> {
    if (record.resourceIds.length === 0 || record.fields.length === 0) return Promise.resolve();
    if (this.closed) return Promise.reject(new AccessLogClosedError());
    const resourcesId = this.resourcesIds.of(auth.clinicId, record.resourceType, record.resourceIds);
    return new Promise<void>((resolve, reject) => {
      this.queue.push({
        row: {
          id: randomUUID(),
          clinic_id: auth.clinicId,
          api_key_id: auth.keyId,
          request_id: record.requestId ?? auth.requestId ?? null,
          resources_id: resourcesId,
          fields: record.fields,
        },
        resourceType: record.resourceType,
        resourceIds: record.resourceIds,
        resolve,
        reject,
      });
      this.running ??= this.drain();
    });
  }

  /** Waits for the entries already recorded to be written; later ones are refused. */
  async close(): Promise<void> {
    this.closed = true;
    await this.running;
  }

  private async drain(): Promise<void> {
    try {
      // Start at the end of this turn of the event loop, not at once: the requests whose bytes
      // arrived in the same turn then join the first statement. No timer, so no added wait
      // beyond the turn. (At once, i.e. after the microtasks, is not enough on PGlite: its
      // queries answer without returning to the event loop, so each request would reach here
      // alone and every entry would get its own statement.)
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxRows);
        this.stats.flushes++;
        try {
          await this.write(batch);
        } catch (error) {
          this.stats.failures++;
          for (const p of batch) p.reject(error);
          continue;
        }
        this.stats.rows += batch.length;
        for (const p of batch) p.resolve();
      }
    } finally {
      // Reached with an empty queue and no await since the check, so no entry is left waiting
      // for a flush that will not come.
      this.running = null;
    }
  }

  /** One statement: the batch's rows, and the lists of resources not known to be stored. */
  private async write(batch: Pending[]): Promise<void> {
    const lists = new Map(batch.map((p) => [p.row.resources_id, p]));
    const unknown = [...lists.keys()].filter((id) => !this.stored.has(id));
    try {
      await this.insert(
        batch,
        unknown.map((id) => listRow(lists.get(id)!)),
      );
    } catch (error) {
      if (!hasSqlState(error, SQLSTATE.foreignKeyViolation) || unknown.length === lists.size) throw error;
      // A list remembered as stored is not in the table: forget them all, write them all.
      this.stored.clear();
      await this.insert(batch, [...lists.values()].map(listRow));
    }
    for (const id of lists.keys()) this.stored.add(id);
  }

  private async insert(batch: Pending[], lists: AccessLogResourcesTable[]): Promise<void> {
    await insertEntries(
      this.db,
      batch.map((p) => p.row),
      lists,
    );
  }
}

function listRow(p: Pending): AccessLogResourcesTable {
  return { id: p.row.resources_id, clinic_id: p.row.clinic_id, resource_type: p.resourceType, resource_ids: [...p.resourceIds] };
}

/**
 * The plans of the statements the service issues, and what in them reads past a tenant.
 *
 * `StatementCapture` is handed to the database as its query watcher (src/db/database.ts,
 * `onQuery`): while a phase runs (a route called over HTTP, a job) it keeps the first instance of
 * each distinct statement text with its parameters. `explainAll` then runs `EXPLAIN` of each with
 * those parameters, inside a transaction that is always rolled back (ANALYZE executes the
 * statement: a write's rows, its events and notifications go with the rollback). A statement
 * that fails when run again (an INSERT of an id now taken, a check that refuses) is explained
 * without ANALYZE.
 *
 * A tenant table is one with a `clinic_id` column. A scan of one is flagged when it is:
 * - `seq_scan`: a sequential scan (every clinic's rows read; under `enable_seqscan = off` it
 *   means no index can serve the statement at all);
 * - `unbound_scan`: an index or bitmap scan whose index condition does not hold the reads to one
 *   clinic: neither `clinic_id`, nor every column of a unique index (a lookup by id reads at most
 *   that row), nor a column referencing a row of a tenant table (a doctor's, a patient's rows
 *   are one clinic's). Such a scan walks other clinics' entries; with ANALYZE the rows it threw
 *   away by its filter are shown.
 * Statements that read across clinics by nature are listed in `CROSS_TENANT` with why.
 */
import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import type { QueryWatcher } from '../../src/db/database.js';

interface Captured {
  /** What was running when the statement was issued: `GET /v1/tasks`, `job purge-webhook-data`. */
  phase: string;
  sql: string;
  parameters: readonly unknown[];
}

/** Statements EXPLAIN can show (transaction control, SET and the like are not plans). */
const EXPLAINABLE = /^\s*(?:\/\*.*?\*\/\s*)*(select|insert|update|delete|with)\b/is;
/** The marks of src/db/prepared-statements.ts and src/db/then-commit.ts: the pool's client acts on them, EXPLAIN must not carry them. */
const MARKS = /\/\* (?:prepared|then commit) \*\//g;

export class StatementCapture {
  private phase: string | null = null;
  private readonly seen = new Map<string, Captured>();

  readonly watcher: QueryWatcher = (text, parameters) => {
    if (this.phase === null || !EXPLAINABLE.test(text)) return;
    const clean = text.replace(MARKS, '').trim();
    if (!this.seen.has(clean)) this.seen.set(clean, { phase: this.phase, sql: clean, parameters: [...parameters] });
  };

  /** Runs `work` with what it issues recorded under `phase`. */
  async during<T>(phase: string, work: () => Promise<T>): Promise<T> {
    this.phase = phase;
    try {
      return await work();
    } finally {
      this.phase = null;
    }
  }

  statements(): Captured[] {
    return [...this.seen.values()];
  }
}

/**
 * The phases whose statements read several clinics' rows on purpose, and why: each works for every
 * clinic at once. Their index scans may walk every clinic's entries (on an index of their own,
 * by time or status); a sequential scan is flagged all the same (it reads the whole table).
 */
const CROSS_TENANT: Readonly<Record<string, string>> = {
  'worker claim':
    'the delivery worker claims due deliveries of every clinic, round-robin across clinics (fairness needs them all), and puts expired leases back, on the partial indexes of pending and in-flight deliveries',
  'job purge-idempotency-keys': 'retention: keys and tool-call writes of every clinic older than their period, by time',
  'job purge-lapsed-holds': 'retention: holds of every clinic lapsed a day ago, by expiry',
  'job purge-webhook-data': 'retention: deliveries and deleted endpoints of every clinic older than the retention period, in batches',
  'job partitions': 'retention: after months of the access log are dropped, the lists of resources of every clinic that no entry names any more',
  'job expire-waitlist-offers': 'the offers of every clinic whose time ran out, by expiry',
  'job refresh-recall-worklists': 'walks the clinics that have recall rules, then refreshes each clinic’s worklist',
  'job confirmations-due': 'walks the clinics that have confirmation rules, then finds each clinic’s appointments due to be asked',
  'job installments-overdue': 'the installments of every clinic that fell due, by due date',
  'job expire-bot-pauses': 'the conversations of every clinic whose bot pause ran out',
  'job documents-finish-uploads': 'the uploads of every clinic whose link ran out',
  'job documents-retry-scans': 'the documents of every clinic waiting for a virus scan',
  'job documents-purge': 'retention: archived documents and used links of every clinic past their period',
  'job documents-sweep': 'stored files no document of any clinic names any more',
  'job flush-event-gaps': 'finds the clinics with event gaps and an active key again, then works per clinic',
};

interface Flag {
  kind: 'seq_scan' | 'unbound_scan';
  table: string;
  node: string;
  index?: string;
  indexCond?: string;
  filter?: string;
  /** ANALYZE only: rows the scan returned (all loops) and rows it read and threw away by its filter. */
  rows?: number;
  removedByFilter?: number;
}

export interface Explained extends Captured {
  analyzed: boolean;
  /** The plan as text (EXPLAIN's TEXT format), for printing. */
  text: string;
  flags: Flag[];
  /** Why the statement's `accepted` scans are accepted (CROSS_TENANT), if it has any. */
  allowed: string | null;
  /** Scans that walk other clinics' entries in a statement that reads across clinics by design. */
  accepted: Flag[];
  error?: string;
}

interface Catalog {
  tenantTables: Set<string>;
  /** Per table, the columns that bind a scan to one clinic's rows: clinic_id and those referencing a tenant table's row. */
  boundColumns: Map<string, Set<string>>;
  /** Per unique index, its columns. */
  uniqueIndexes: Map<string, string[]>;
}

async function readCatalog(db: Kysely<DB>): Promise<Catalog> {
  const tenant = await sql<{ table_name: string }>`
    SELECT c.table_name FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
    WHERE c.table_schema = current_schema() AND c.column_name = 'clinic_id' AND t.table_type = 'BASE TABLE'`.execute(db);
  const tenantTables = new Set(tenant.rows.map((r) => r.table_name));
  const fks = await sql<{ tbl: string; col: string; ref: string }>`
    SELECT cl.relname AS tbl, a.attname AS col, rf.relname AS ref
    FROM pg_constraint co
    JOIN pg_class cl ON cl.oid = co.conrelid
    JOIN pg_class rf ON rf.oid = co.confrelid
    JOIN pg_attribute a ON a.attrelid = co.conrelid AND a.attnum = co.conkey[1]
    WHERE co.contype = 'f' AND cardinality(co.conkey) = 1 AND cl.relnamespace = current_schema()::regnamespace`.execute(db);
  const boundColumns = new Map<string, Set<string>>();
  for (const t of tenantTables) boundColumns.set(t, new Set(['clinic_id']));
  for (const fk of fks.rows) if (tenantTables.has(fk.ref)) boundColumns.get(fk.tbl)?.add(fk.col);
  const unique = await sql<{ index: string; cols: string[] | string }>`
    SELECT i.relname AS index, array_agg(a.attname::text ORDER BY a.attnum) AS cols
    FROM pg_index ix
    JOIN pg_class i ON i.oid = ix.indexrelid
    JOIN pg_attribute a ON a.attrelid = ix.indrelid AND a.attnum = ANY (ix.indkey)
    WHERE ix.indisunique AND i.relnamespace = current_schema()::regnamespace
    GROUP BY i.relname`.execute(db);
  const uniqueIndexes = new Map(unique.rows.map((r) => [r.index, Array.isArray(r.cols) ? r.cols : r.cols.replace(/^\{|\}$/g, '').split(',')]));
  return { tenantTables, boundColumns, uniqueIndexes };
}

/** The condition holds `column` to a value (or a list of values): `column = …`, `column = ANY (…)`. */
function equates(cond: string, column: string): boolean {
  return new RegExp(`(^|[^\\w.])(\\w+\\.)?"?${column}"?\\s*=`).test(cond);
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

function boundIndexScan(catalog: Catalog, table: string, index: string | undefined, cond: string | undefined): boolean {
  if (!cond) return false;
  if ([...(catalog.boundColumns.get(table) ?? [])].some((c) => equates(cond, c))) return true;
  const unique = index ? catalog.uniqueIndexes.get(index) : undefined;
  return !!unique && unique.every((c) => equates(cond, c));
}

/** A bitmap's index side is bound when one arm of an AND is, or every arm of an OR. */
function boundBitmap(catalog: Catalog, table: string, node: PlanNode): { bound: boolean; conds: string[] } {
  if (node['Node Type'] === 'Bitmap Index Scan') {
    const cond = node['Index Cond'];
    return { bound: boundIndexScan(catalog, table, node['Index Name'], cond), conds: [`${node['Index Name']}: ${cond ?? '(none)'}`] };
  }
  const arms = (node.Plans ?? []).map((p) => boundBitmap(catalog, table, p));
  const conds = arms.flatMap((a) => a.conds);
  if (node['Node Type'] === 'BitmapAnd') return { bound: arms.some((a) => a.bound), conds };
  return { bound: arms.length > 0 && arms.every((a) => a.bound), conds };
}

function planFlags(catalog: Catalog, root: PlanNode): Flag[] {
  const flags: Flag[] = [];
  const walk = (node: PlanNode) => {
    const table = node['Relation Name'];
    if (table && catalog.tenantTables.has(table)) {
      const type = node['Node Type'];
      const analyzed =
        node['Actual Loops'] !== undefined
          ? { rows: (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1), removedByFilter: node['Rows Removed by Filter'] ?? 0 }
          : {};
      if (type === 'Seq Scan') flags.push({ kind: 'seq_scan', table, node: type, filter: node.Filter, ...analyzed });
      else if (type === 'Index Scan' || type === 'Index Only Scan') {
        if (!boundIndexScan(catalog, table, node['Index Name'], node['Index Cond']))
          flags.push({ kind: 'unbound_scan', table, node: type, index: node['Index Name'], indexCond: node['Index Cond'], filter: node.Filter, ...analyzed });
      } else if (type === 'Bitmap Heap Scan') {
        const side = boundBitmap(catalog, table, node.Plans?.[0] ?? { 'Node Type': 'none' });
        if (!side.bound) flags.push({ kind: 'unbound_scan', table, node: type, indexCond: side.conds.join(' / '), filter: node.Filter, ...analyzed });
      }
    }
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(root);
  return flags;
}

/** Thrown to roll back the transaction an EXPLAIN ran in, carrying its answer out. */
class RolledBack {
  constructor(readonly rows: unknown[]) {}
}

async function explainOnce(db: Kysely<DB>, statement: Captured, options: string, seqscanOff: boolean): Promise<unknown[]> {
  try {
    await db.transaction().execute(async (trx) => {
      if (seqscanOff) await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      const answer = await trx.executeQuery(CompiledQuery.raw(`EXPLAIN (${options}) ${statement.sql}`, [...statement.parameters]));
      throw new RolledBack(answer.rows);
    });
  } catch (error) {
    if (error instanceof RolledBack) return error.rows;
    throw error;
  }
  throw new Error('unreachable');
}

function planOf(rows: unknown[]): PlanNode {
  const cell = Object.values(rows[0] as Record<string, unknown>)[0];
  const json = (typeof cell === 'string' ? JSON.parse(cell) : cell) as { Plan: PlanNode }[];
  return json[0]!.Plan;
}

const textOf = (rows: unknown[]) => rows.map((r) => String(Object.values(r as Record<string, unknown>)[0])).join('\n');

/**
 * EXPLAIN of each statement with its parameters (ANALYZE and BUFFERS when `analyze`, the plain
 * plan otherwise), under `enable_seqscan = off` when `seqscanOff`; each in a rolled-back transaction.
 */
export async function explainAll(
  db: Kysely<DB>,
  statements: Captured[],
  options: { analyze: boolean; seqscanOff: boolean; withText?: boolean },
): Promise<Explained[]> {
  const catalog = await readCatalog(db);
  const out: Explained[] = [];
  for (const statement of statements) {
    let rows: unknown[] | null = null;
    let error: string | undefined;
    for (const attempt of options.analyze ? [true, false] : [false]) {
      try {
        const json = await explainOnce(db, statement, attempt ? 'ANALYZE, BUFFERS, FORMAT JSON' : 'FORMAT JSON', options.seqscanOff);
        const text = options.withText ? textOf(await explainOnce(db, statement, attempt ? 'ANALYZE, BUFFERS' : 'COSTS OFF', options.seqscanOff)) : '';
        rows = json;
        out.push({ ...statement, analyzed: attempt, text, flags: planFlags(catalog, planOf(json)), allowed: null, accepted: [] });
        break;
      } catch (e) {
        error = e instanceof Error ? e.message : String(e);
      }
    }
    if (!rows) out.push({ ...statement, analyzed: false, text: '', flags: [], allowed: null, accepted: [], error });
  }
  for (const e of out) {
    const why = CROSS_TENANT[e.phase];
    if (!why) continue;
    // Only the walk over other clinics' entries is accepted; a sequential scan stays flagged.
    const seq = e.flags.filter((f) => f.kind === 'seq_scan');
    e.accepted = e.flags.filter((f) => f.kind !== 'seq_scan');
    e.flags = seq;
    if (e.accepted.length > 0) e.allowed = why;
  }
  return out;
}

const one = (text: string) => text.replace(/\s+/g, ' ').trim();

function describeFlag(f: Flag): string {
  const parts = [`${f.kind} on ${f.table} (${f.node}${f.index ? ` ${f.index}` : ''})`];
  if (f.indexCond) parts.push(`index cond ${f.indexCond}`);
  if (f.filter) parts.push(`filter ${f.filter}`);
  if (f.rows !== undefined) parts.push(`rows ${f.rows}, removed by filter ${f.removedByFilter}`);
  return parts.join('; ');
}

/** The report: each statement with its plan when `withPlans`, then the flags, the accepted ones apart. Returns the lines. */
export function report(explained: Explained[], withPlans: boolean): string[] {
  const lines: string[] = [];
  if (withPlans) {
    for (const e of explained) {
      lines.push(
        `-- ${e.phase}${e.analyzed ? '' : ' (not analyzed: it fails when run again)'}`,
        one(e.sql),
        e.error ? `   EXPLAIN failed: ${e.error}` : e.text,
        '',
      );
    }
  }
  // The scans that threw away most rows first: on a small dataset a small table read whole is the planner's right choice.
  const removed = (e: Explained) => Math.max(0, ...e.flags.map((f) => f.removedByFilter ?? 0));
  const flagged = explained.filter((e) => e.flags.length > 0).sort((a, b) => removed(b) - removed(a));
  const accepted = explained.filter((e) => e.accepted.length > 0);
  const failed = explained.filter((e) => e.error);
  lines.push(
    `${explained.length} statements explained; ${flagged.length} flagged, ${accepted.length} across clinics by design, ${failed.length} not explainable`,
  );
  for (const e of flagged) {
    lines.push(`FLAGGED [${e.phase}] ${one(e.sql).slice(0, 300)}`);
    for (const f of e.flags) lines.push(`    ${describeFlag(f)}`);
  }
  for (const e of accepted) {
    lines.push(`ACROSS CLINICS [${e.phase}] ${one(e.sql).slice(0, 160)}`);
    for (const f of e.accepted) lines.push(`    ${describeFlag(f)}`);
    lines.push(`    why: ${e.allowed}`);
  }
  for (const e of failed) lines.push(`NOT EXPLAINED [${e.phase}] ${one(e.sql).slice(0, 200)}: ${e.error}`);
  return lines;
}

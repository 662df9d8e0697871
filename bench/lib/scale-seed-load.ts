/**
 * The load machinery of bench/lib/scale-seed.ts: its sessions (settings a bulk load wants, on
 * PostgreSQL), its lanes (steps run side by side on connections of their own), and the big tables'
 * indexes and constraints dropped before the load and built again after it.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';

/** The tables the seed fills by the million. */
const BIG_TABLES = [
  'patients',
  'appointments',
  'calls',
  'conversations',
  'chat_messages',
  'tasks',
  'treatment_plans',
  'payments',
  'events',
  'webhook_deliveries',
  'access_log',
];

/** Whether the database is a PostgreSQL server (not the embedded PGlite, one connection of limited memory). */
export async function isServer(db: Kysely<DB>): Promise<boolean> {
  const version = (await sql<{ v: string }>`SELECT version() AS v`.execute(db)).rows[0]!.v;
  return !/emscripten|wasm/i.test(version);
}

/**
 * Runs `work` on one connection with a bulk load's settings (PostgreSQL only), put back after: no
 * wait for the WAL's flush at each commit (a crash loses the last statements, never makes the
 * data inconsistent, and a crashed seed is run again anyway), memory for the hash joins of the
 * generated rows and for the index builds' sorts (one sort at a time per lane: the lanes are the
 * parallelism, so no parallel workers on top on a 2-core machine).
 */
export async function inSession<T>(db: Kysely<DB>, server: boolean, work: (conn: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.connection().execute(async (conn) => {
    const settings = server ? { synchronous_commit: 'off', work_mem: '256MB', maintenance_work_mem: '1GB', max_parallel_maintenance_workers: '0' } : {};
    for (const [name, value] of Object.entries(settings)) await sql`SELECT set_config(${name}, ${value}, false)`.execute(conn);
    try {
      return await work(conn);
    } finally {
      for (const name of Object.keys(settings)) await sql.raw(`RESET ${name}`).execute(conn);
    }
  });
}

/** A job of `runLanes`: `exclusive` (an ALTER TABLE) runs alone on its tables, the others (CREATE INDEX) share them. */
interface LaneJob {
  tables: string[];
  exclusive: boolean;
  run: (conn: Kysely<DB>) => Promise<void>;
}

/**
 * Runs the jobs over `lanes` connections, in their order, each when a lane is free and no running
 * job holds one of its tables in a way it conflicts with: the lanes never wait on each other's locks.
 */
export async function runLanes(db: Kysely<DB>, server: boolean, lanes: number, jobs: LaneJob[]): Promise<void> {
  const queue = [...jobs];
  // Per table: how many shared jobs hold it, or -1 for an exclusive one.
  const held = new Map<string, number>();
  const waiting: (() => void)[] = [];
  const free = (job: LaneJob) => job.tables.every((t) => !held.has(t) || (!job.exclusive && held.get(t)! > 0));
  const lane = () =>
    inSession(db, server, async (conn) => {
      while (queue.length > 0) {
        const i = queue.findIndex(free);
        if (i < 0) {
          await new Promise<void>((resolve) => waiting.push(resolve));
          continue;
        }
        const job = queue.splice(i, 1)[0]!;
        const tables = [...new Set(job.tables)];
        for (const t of tables) held.set(t, job.exclusive ? -1 : (held.get(t) ?? 0) + 1);
        try {
          await job.run(conn);
        } finally {
          for (const t of tables) {
            const n = held.get(t)!;
            if (n === -1 || n === 1) held.delete(t);
            else held.set(t, n - 1);
          }
          for (const wake of waiting.splice(0)) wake();
        }
      }
    });
  await Promise.all(Array.from({ length: lanes }, lane));
}

interface DroppedIndexes {
  /** What makes the indexes again, on their table; `exclusive`: an ALTER TABLE. */
  builds: { table: string; exclusive: boolean; statement: string }[];
  /** Then the keys made of their indexes (an instant each, after the builds on their table). */
  keys: { table: string; statement: string }[];
  /** Then the foreign keys, each checked once over the rows (it holds both its tables). */
  foreignKeys: { tables: string[]; statement: string }[];
}

/**
 * Drops every index of the big tables (primary and unique keys too), their exclusion constraints
 * (the appointments' overlap rules) and every foreign key from or to them, and answers what makes
 * them again: built by one sort each over the loaded rows, as a restore does, instead of row by
 * row. A row's insert into a primary key of random uuids touches a random leaf page: once the key
 * outgrows shared_buffers, nearly every row evicts a dirty page and, after each checkpoint, writes
 * a full page to the WAL, so the load slowed down as it grew (20M appointments, 50M access-log
 * rows). The seed's ids are unique, its rows never overlap and refer to rows it made: the keys and
 * constraints come back.
 */
export async function dropIndexes(db: Kysely<DB>): Promise<DroppedIndexes> {
  const constraints = await sql<{ table: string; name: string; type: string; def: string; index: string | null; partitioned: boolean; referenced: string }>`
    SELECT t.relname AS table, c.conname AS name, c.contype AS type, pg_get_constraintdef(c.oid) AS def, c.confrelid::regclass::text AS referenced,
           CASE WHEN c.contype IN ('p', 'u') THEN pg_get_indexdef(c.conindid) END AS index, t.relkind = 'p' AS partitioned
    FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
    WHERE c.conparentid = 0 AND t.relnamespace = current_schema()::regnamespace
      AND (t.relname = ANY (${BIG_TABLES}::text[]) AND c.contype IN ('p', 'u', 'x', 'f')
           OR c.contype = 'f' AND c.confrelid IN (SELECT oid FROM pg_class WHERE relname = ANY (${BIG_TABLES}::text[]) AND relnamespace = current_schema()::regnamespace))`.execute(
    db,
  );
  const indexes = await sql<{ table: string; name: string; def: string }>`
    SELECT t.relname AS table, i.relname AS name, pg_get_indexdef(x.indexrelid) AS def
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
    WHERE t.relname = ANY (${BIG_TABLES}::text[]) AND t.relnamespace = current_schema()::regnamespace
      AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)`.execute(db);
  const order = { f: 0, x: 1, u: 2, p: 3 } as Record<string, number>;
  const sorted = [...constraints.rows].sort((a, b) => order[a.type]! - order[b.type]!);
  for (const c of sorted) await sql.raw(`ALTER TABLE ${c.table} DROP CONSTRAINT ${c.name}`).execute(db);
  for (const i of indexes.rows) await sql.raw(`DROP INDEX ${i.name}`).execute(db);
  // A partitioned table's index is written `ON ONLY <table>` (its parent alone, as a dump makes it
  // before attaching each partition's): made again without ONLY, it covers every partition.
  const onAll = (def: string) => def.replace(' ON ONLY ', ' ON ');
  const builds: DroppedIndexes['builds'] = indexes.rows.map((i) => ({ table: i.table, exclusive: false, statement: onAll(i.def) }));
  const keys: DroppedIndexes['keys'] = [];
  for (const c of sorted.filter((c) => c.type !== 'f')) {
    const add = `ALTER TABLE ${c.table} ADD CONSTRAINT ${c.name}`;
    // A key's index is built like the others (sharing the table), then becomes the key in an instant;
    // a partitioned table's key, and an exclusion constraint, can only be made whole by ALTER TABLE.
    if (c.index && !c.partitioned) {
      builds.push({ table: c.table, exclusive: false, statement: c.index });
      keys.push({ table: c.table, statement: `${add} ${c.type === 'p' ? 'PRIMARY KEY' : 'UNIQUE'} USING INDEX ${c.name}` });
    } else builds.push({ table: c.table, exclusive: true, statement: `${add} ${c.def}` });
  }
  const foreignKeys = sorted
    .filter((c) => c.type === 'f')
    .map((c) => ({ tables: [c.table, c.referenced], statement: `ALTER TABLE ${c.table} ADD CONSTRAINT ${c.name} ${c.def}` }));
  return { builds, keys, foreignKeys };
}

/**
 * Builds the dropped indexes over `lanes` connections, then the keys and foreign keys. The ALTER
 * TABLEs first: each holds its table alone, so one left for the end runs while the other lane has
 * nothing left to do (the appointments' doctor overlap: minutes at the full size); begun first, it
 * runs while the other lane builds the other tables. Then the biggest first (the GiST ones weigh
 * more), so the lanes end together. The foreign keys too run side by side where their tables differ
 * (the access log's takes as long as all the others).
 */
export async function rebuildIndexes(db: Kysely<DB>, server: boolean, lanes: number, dropped: DroppedIndexes, log: (line: string) => void): Promise<void> {
  const sizes = new Map(
    (
      await sql<{ name: string; size: number }>`
        SELECT t.relname AS name, (SELECT sum(pg_relation_size(p.relid))::float8 FROM pg_partition_tree(t.oid) AS p) AS size FROM pg_class t
        WHERE t.relname = ANY (${BIG_TABLES}::text[]) AND t.relnamespace = current_schema()::regnamespace`.execute(db)
    ).rows.map((r) => [r.name, Number(r.size)]),
  );
  const weight = (b: DroppedIndexes['builds'][number]) => (sizes.get(b.table) ?? 0) * (/ USING gist /i.test(b.statement) ? 3 : 1);
  const timed = async (conn: Kysely<DB>, statement: string) => {
    const started = Date.now();
    await sql.raw(statement).execute(conn);
    log(`  ${((Date.now() - started) / 1000).toFixed(1)} s: ${statement.slice(0, 110)}`);
  };
  const builds = [...dropped.builds].sort((a, b) => Number(b.exclusive) - Number(a.exclusive) || weight(b) - weight(a));
  await runLanes(
    db,
    server,
    lanes,
    builds.map((b) => ({ tables: [b.table], exclusive: b.exclusive, run: (conn) => timed(conn, b.statement) })),
  );
  await runLanes(
    db,
    server,
    lanes,
    dropped.keys.map((k) => ({ tables: [k.table], exclusive: true, run: (conn) => timed(conn, k.statement) })),
  );
  const foreignKeys = [...dropped.foreignKeys].sort((a, b) => (sizes.get(b.tables[0]!) ?? 0) - (sizes.get(a.tables[0]!) ?? 0));
  await runLanes(
    db,
    server,
    lanes,
    foreignKeys.map((f) => ({ tables: f.tables, exclusive: true, run: (conn) => timed(conn, f.statement) })),
  );
}

/**
 * The database factory: PostgreSQL through `pg` when DATABASE_URL is set, PGlite otherwise.
 * Both speak the same SQL; this module hides the few places where they differ
 * (multi-statement scripts, LISTEN, closing, the data-folder lock).
 */
import { Kysely, PostgresDialect, type LogConfig } from 'kysely';
import type pg from 'pg';
import type { DB } from './schema.js';
import { Mutex } from './mutex.js';
import { PGliteDialect } from './pglite-dialect.js';
import { asIs, DATE, INT8, NUMERIC, startPGlite, toNumber, type StartedPGlite } from './pglite-start.js';
import { parseTimestamptz } from './timestamptz.js';
import { StatementNames } from './prepared-statements.js';
import { pgClientClass, withStatementDeadline } from './pg-client.js';

export type Engine = 'postgres' | 'pglite';

type PgModule = typeof pg;

/** Thrown by `listen` once the database is closed: nothing is left to listen to. */
export class DatabaseClosedError extends Error {
  constructor() {
    super('the database is closed');
  }
}

export interface Database {
  readonly engine: Engine;
  readonly db: Kysely<DB>;
  /** Runs a script of several statements (migrations). */
  runScript(sql: string): Promise<void>;
  /**
   * Calls `onMessage` for every NOTIFY on `channel`; returns a function that stops listening.
   * `onLost` is called once if the listening connection breaks (PostgreSQL; never on close or
   * unlisten): notifications sent after that are missed until the caller listens again.
   */
  listen(channel: string, onMessage: (payload: string) => void, onLost?: (error: unknown) => void): Promise<() => Promise<void>>;
  /**
   * PostgreSQL: takes a session-level advisory lock on a connection of its own (the direct one),
   * held until the returned function releases it and closes that connection.
   */
  sessionLock?(key: number): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /** Embedded database only: its data folder as a tarball (backups, test snapshots). */
  dumpDataDir?(): Promise<Blob>;
}

// Numbers come back as numbers and dates as 'YYYY-MM-DD' strings on both engines (the
// embedded database's parsers: src/db/pglite-start.ts). Timestamps are read by positions, and by
// the driver's own parser when their text has another shape (src/db/timestamptz.ts).
const TIMESTAMPTZ = 1184;
let pgTypesConfigured = false;
function configurePgTypes(pg: PgModule): void {
  if (pgTypesConfigured) return;
  pg.types.setTypeParser(INT8, toNumber);
  pg.types.setTypeParser(NUMERIC, toNumber);
  pg.types.setTypeParser(DATE, asIs);
  const driverTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ, 'text');
  pg.types.setTypeParser(TIMESTAMPTZ, (text: string) => parseTimestamptz(text) ?? driverTimestamptz(text));
  pgTypesConfigured = true;
}

interface OpenOptions {
  databaseUrl: string | null;
  /** Folder of the embedded database; `null` keeps it in memory (tests). */
  dataDir: string | null;
  /**
   * PostgreSQL: where the connections that need their session go (LISTEN, the migrations' lock)
   * when `databaseUrl` is a pooler in transaction mode; `databaseUrl` when absent.
   */
  directUrl?: string | null;
  poolMax?: number;
  /** PostgreSQL: runs of a statement marked prepared() before it is prepared (src/db/prepared-statements.ts; 1,000). */
  prepareAfter?: number;
  /** PostgreSQL: the wire-level speed-ups of src/db/pg-client.ts (default on); off runs `pg`'s plain protocol. */
  wireSpeedUps?: boolean;
  /**
   * PostgreSQL, a read replica's bounds (src/db/replicas.ts): how long a connection may take to
   * open (a free one to come), and a statement to be answered before its connection is ended.
   * Unset: no bound (the primary: a statement there may take what it takes).
   */
  bounds?: { connectMs: number; statementMs: number };
  /** A tarball from `dumpDataDir`, to start an in-memory database from a snapshot (tests). */
  pgliteSnapshot?: Blob;
  /** The embedded database's start already under way in `dataDir` (src/main.ts starts it first). */
  pglite?: Promise<StartedPGlite>;
  /** Called after each statement Kysely ran, with its text and parameters (bench:plans and its test capture what the service issues). */
  onQuery?: QueryWatcher;
}

/** Sees each statement Kysely ran (its text and parameters), after it ran; errors included. */
export type QueryWatcher = (sql: string, parameters: readonly unknown[]) => void;

function logConfig(onQuery: QueryWatcher | undefined): LogConfig | undefined {
  return onQuery ? (event) => onQuery(event.query.sql, event.query.parameters) : undefined;
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  const log = logConfig(options.onQuery);
  if (options.databaseUrl) {
    const urls = { pooled: options.databaseUrl, direct: options.directUrl ?? options.databaseUrl };
    return openPostgres(urls, options.poolMax ?? 10, options.prepareAfter, options.wireSpeedUps ?? true, log, options.bounds);
  }
  return openPGlite(await (options.pglite ?? startPGlite(options.dataDir, options.pgliteSnapshot)), log);
}

async function openPostgres(
  urls: { pooled: string; direct: string },
  poolMax: number,
  prepareAfter: number | undefined,
  wireSpeedUps: boolean,
  log: LogConfig | undefined,
  bounds: OpenOptions['bounds'],
): Promise<Database> {
  // `pg` is loaded only by a process on PostgreSQL (start-up time on the embedded database).
  const { default: pg } = await import('pg');
  configurePgTypes(pg);
  // Connections are kept once opened (no idle timeout). A new PostgreSQL backend is cold: its
  // first name search loads pg_trgm and fuzzystrmatch and reads the catalog, ten times as slow
  // as on a warm one. pg-pool's default closed a connection idle for 10 s, and it hands out the
  // most recently released one first, so a steady search load kept two or three busy and let
  // the rest close: every burst, and the first call after a quiet moment, met cold backends
  // (bench:search --http's p99; the figures are in docs/performance.md).
  // Statements the process repeats are prepared once per connection, and a transaction's BEGIN
  // travels with its first statement (src/db/pg-client.ts), unless DB_WIRE_SPEEDUPS=off or `pg`
  // lacks a part that needs.
  const names = new StatementNames(prepareAfter === undefined ? undefined : { prepareAfter });
  const Client = pgClientClass(pg, names, wireSpeedUps);
  const pool = new pg.Pool({
    connectionString: urls.pooled,
    max: poolMax,
    idleTimeoutMillis: 0,
    Client: bounds ? withStatementDeadline(Client, bounds.statementMs) : Client,
    ...(bounds ? { connectionTimeoutMillis: bounds.connectMs } : {}),
  });
  // A lost connection (PostgreSQL restarted, a network cut) makes its client emit `error`; with
  // no listener Node would throw it and end the process. An idle client's error reaches the pool
  // (which drops the client); a checked-out one's reaches only the client: its query fails with
  // the same error (a 503 unavailable, src/db/errors.ts) and the pool drops it on release. New
  // connections are made on next use, so the pool recovers when the server is back.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log });
  const listeners: pg.Client[] = [];
  let closed = false;
  return {
    engine: 'postgres',
    db,
    async runScript(sql) {
      const client = await pool.connect();
      try {
        await client.query(sql);
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async listen(channel, onMessage, onLost) {
      if (closed) throw new DatabaseClosedError();
      // A pooler in transaction mode would hand the LISTEN's session to others: the direct URL.
      const client = new pg.Client({ connectionString: urls.direct });
      let ended = false;
      const lost = (error: unknown) => {
        if (ended || closed) return;
        ended = true;
        client.end().catch(() => {});
        const at = listeners.indexOf(client);
        if (at < 0) return; // not listening yet: listen() itself fails
        listeners.splice(at, 1);
        onLost?.(error);
      };
      client.on('error', lost);
      client.on('end', () => lost(new Error('the listening connection ended')));
      client.on('notification', (msg) => {
        if (msg.channel === channel) onMessage(msg.payload ?? '');
      });
      try {
        await client.connect();
        await client.query(`LISTEN "${channel.replace(/"/g, '')}"`);
      } catch (error) {
        lost(error);
        throw error;
      }
      listeners.push(client);
      return async () => {
        if (ended) return;
        ended = true;
        listeners.splice(listeners.indexOf(client), 1);
        await client.end().catch(() => {});
      };
    },
    async sessionLock(key) {
      const client = new pg.Client({ connectionString: urls.direct });
      client.on('error', () => {});
      await client.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1)', [key]);
      } catch (error) {
        await client.end().catch(() => {});
        throw error;
      }
      return async () => {
        await client.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => {});
        await client.end().catch(() => {});
      };
    },
    async close() {
      closed = true;
      await Promise.all(listeners.map((c) => c.end().catch(() => {})));
      await db.destroy();
    },
  };
}

async function openPGlite({ pglite, releaseLock }: StartedPGlite, log: LogConfig | undefined): Promise<Database> {
  const mutex = new Mutex();
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite, mutex), log });
  return {
    engine: 'pglite',
    db,
    runScript: (sql) =>
      mutex.run(async () => {
        try {
          await pglite.exec(sql);
        } catch (error) {
          await pglite.exec('ROLLBACK').catch(() => {});
          throw error;
        }
      }),
    // One process holds the embedded database and its listener: the connection cannot be lost.
    async listen(channel, onMessage) {
      const unlisten = await pglite.listen(channel, onMessage);
      return async () => unlisten();
    },
    dumpDataDir: () => mutex.run(async () => (await pglite.dumpDataDir('none')) as Blob),
    async close() {
      // Wait for the transaction in progress, then close so the data folder is left clean.
      await mutex.lock();
      try {
        await pglite.close();
      } finally {
        releaseLock();
      }
    },
  };
}

/**
 * The PostgreSQL pool's client class: how each statement Kysely hands `pg` reaches PostgreSQL.
 *
 * 1. A statement marked `prepared()` runs as a named prepared statement once the process ran it
 *    often enough (src/db/prepared-statements.ts says which and when).
 * 2. A transaction's BEGIN travels with its first statement. Kysely sends `begin` and
 *    waits for its answer before the first statement, so every transaction paid one more round
 *    trip than it has statements: one more send for the server (under load, `writev` was a large
 *    part of its CPU samples, each send waking PostgreSQL's backend on the other core) and one more
 *    read, parse and answer for PostgreSQL. Here `begin` is answered at once and kept; the next
 *    statement goes out as BEGIN's Bind and Execute followed by the statement's own messages and
 *    one Sync, in one write. One Sync makes them one unit: should BEGIN fail, PostgreSQL skips
 *    the statement (it never runs outside the transaction), and the statement's promise rejects
 *    as a failed statement would. A transaction that ends before any statement (an error in the
 *    service's own checks) sends nothing at all.
 *
 *    The first statement goes by the extended protocol for this, as every statement with
 *    parameters already does; one without parameters (a script of several statements, such as
 *    a migration) gets its BEGIN sent alone first, as before. So does a named statement that
 *    this connection has not prepared yet: `pg` records a statement as prepared on the first
 *    ParseComplete it reads while that statement is active, and BEGIN's would come first.
 *
 * 3. A statement marked `thenCommit()` (src/db/then-commit.ts) inside a transaction carries the
 *    transaction's COMMIT: its messages, then COMMIT's Parse, Bind and Execute, then the one Sync
 *    (after BEGIN's too when it is the transaction's first statement). Should the statement fail,
 *    PostgreSQL skips the COMMIT and the transaction stays open and failed, for Kysely's
 *    `rollback`; should the COMMIT fail, the statement's promise rejects with its error. Once it
 *    committed, Kysely's `commit` (or `rollback`) is answered at once, and any other statement
 *    before it throws: the transaction it would run in is over.
 *
 * 4. A statement whose text ends with WITH_BEGIN_MARK, sent while BEGIN is kept, is kept too and
 *    answered at once: it goes out after BEGIN's messages and before the next statement's, in the
 *    same write and under the same Sync (the idempotency key's mark, src/db/idempotency.ts
 *    `keyedDb`: a transaction's first statement that costs no round trip). Should it fail, the
 *    next statement is skipped and rejects with its error; should the transaction end before
 *    any other statement, neither is sent. Its parameters are sent as text. It must return no
 *    row: its rows would be read as the next statement's.
 *
 * Only the call Kysely makes, `query(text, values)` awaited, is changed; every other form of
 * `query()` (callbacks, query objects, a LISTEN client's) passes through as `pg` has it.
 */
import type pg from 'pg';
import { StatementNames } from './prepared-statements.js';
import { THEN_COMMIT_MARK } from './then-commit.js';

/** Ends a statement that goes out with its transaction's BEGIN (item 4 above); a comment to PostgreSQL. */
export const WITH_BEGIN_MARK = '/* with begin */';

/** A statement kept to go out with BEGIN. */
interface KeptStatement {
  text: string;
  values: unknown[];
}

/** What `pg` answers for a statement that returns no rows; Kysely reads `command`, `rowCount` and `rows`. */
function answered(command: string) {
  return { command, rowCount: null, oid: 0, rows: [], fields: [] };
}

/** The pieces of `pg`'s Query and Connection this module uses (they are not in @types/pg). */
interface WireConnection {
  parsedStatements: Record<string, string>;
  parse(query: { text: string; name?: string }): void;
  bind(config: { statement?: string; portal?: string; values?: unknown[] }): void;
  execute(config: { portal?: string; rows?: number }): void;
  sync(): void;
}
interface QueryInternals {
  portal: string;
  prepare(connection: WireConnection): void;
  _getRows(connection: WireConnection, rows: number | undefined): void;
  handleCommandComplete(message: unknown, connection: WireConnection): void;
}

/** An unnamed statement (BEGIN, COMMIT, a kept one), its parameters as text: Parse, Bind and Execute, no Sync. */
function sendBare(connection: WireConnection, text: string, values: unknown[] = []): void {
  connection.parse({ text, name: '' });
  connection.bind({ statement: '', portal: '', values: values.map((v) => (v === null || v === undefined ? null : String(v))) });
  connection.execute({ portal: '' });
}

/** What a wrapped query sends around its own messages. */
interface Wrap {
  begin: boolean;
  /** A kept statement, after BEGIN and before the query's own messages (only with `begin`). */
  first: KeptStatement | null;
  commit: boolean;
}

/**
 * A `pg` query sent with an unnamed BEGIN (and a kept statement) before its own messages, an
 * unnamed COMMIT after them, or both, all before its one Sync; it passes on its own
 * CommandComplete only.
 */
function wrappedQueryClass(pgModule: typeof pg) {
  const Base = pgModule.Query as unknown as new (config: unknown) => QueryInternals;
  class WrappedQuery extends Base {
    /** CommandCompletes read so far: BEGIN's and the kept statement's come first when sent, COMMIT's last. */
    private completes = 0;

    constructor(
      config: pg.QueryConfig,
      private readonly wrap: Wrap,
    ) {
      super(config);
    }

    /** Always by the extended protocol, so that the statement shares BEGIN's and COMMIT's one Sync. */
    requiresPreparation(): boolean {
      return true;
    }

    override prepare(connection: WireConnection): void {
      if (this.wrap.begin) sendBare(connection, 'BEGIN');
      if (this.wrap.first) sendBare(connection, this.wrap.first.text, this.wrap.first.values);
      super.prepare(connection);
    }

    /** Called by prepare() after the statement's Execute, to send the Sync: COMMIT goes before it. */
    override _getRows(connection: WireConnection, rows: number | undefined): void {
      if (!this.wrap.commit) return super._getRows(connection, rows);
      connection.execute({ portal: this.portal, rows });
      sendBare(connection, 'COMMIT');
      connection.sync();
    }

    override handleCommandComplete(message: unknown, connection: WireConnection): void {
      this.completes += 1;
      if (this.completes !== 1 + (this.wrap.begin ? 1 : 0) + (this.wrap.first ? 1 : 0)) return;
      super.handleCommandComplete(message, connection);
    }
  }
  return WrappedQuery as unknown as new (config: pg.QueryConfig, wrap: Wrap) => pg.Query;
}

/**
 * The private parts of `pg` the wrapped client uses, checked before it is used: `pg` is pinned to
 * an exact version in package.json, and an upgrade that renames or drops one of them must fall
 * back to the plain protocol instead of silently changing how a write reaches PostgreSQL.
 * Returns the names of the parts that are missing (none: the speed-ups can run).
 */
export function missingWireParts(pgModule: typeof pg): string[] {
  const missing: string[] = [];
  const query = (pgModule.Query as unknown as { prototype?: Record<string, unknown> } | undefined)?.prototype;
  for (const method of ['prepare', '_getRows', 'handleCommandComplete', 'requiresPreparation']) {
    if (typeof query?.[method] !== 'function') missing.push(`Query.prototype.${method}`);
  }
  const Connection = (pgModule as unknown as { Connection?: new () => Record<string, unknown> }).Connection;
  const connection = Connection?.prototype as Record<string, unknown> | undefined;
  for (const method of ['parse', 'bind', 'execute', 'sync']) {
    if (typeof connection?.[method] !== 'function') missing.push(`Connection.prototype.${method}`);
  }
  // Set by the constructor, not on the prototype: a connection that is never connected shows it.
  if (Connection && typeof new Connection().parsedStatements !== 'object') missing.push('Connection#parsedStatements');
  const client = new pgModule.Client() as unknown as { connection?: unknown };
  if (Connection && !(client.connection instanceof Connection)) missing.push('Client#connection');
  return missing;
}

let fallbackTold = false;

/**
 * The client class the pool runs: the wrapped one below when `speedUps` is on and `pg` still has
 * every part it needs, else `pg`'s own Client (the plain protocol: every statement unnamed,
 * BEGIN and COMMIT each in their own round trip). A missing part is told once per process.
 * `DB_WIRE_SPEEDUPS=off` chooses the plain protocol; the write paths' tests run both ways (.ci/run).
 */
export function pgClientClass(pgModule: typeof pg, names: StatementNames, speedUps: boolean): typeof pg.Client {
  if (!speedUps) return pgModule.Client;
  const missing = missingWireParts(pgModule);
  if (missing.length === 0) return poolClient(pgModule, names);
  if (!fallbackTold) {
    fallbackTold = true;
    process.emitWarning(
      `pg lacks ${missing.join(', ')}: PostgreSQL runs the plain protocol (no prepared statements, BEGIN and COMMIT in their own round trips)`,
      {
        code: 'DCM_PG_WIRE_FALLBACK',
      },
    );
  }
  return pgModule.Client;
}

/** The pool's client class (`new pg.Pool({ Client })`): see the top of this file. */
export function poolClient(pgModule: typeof pg, names = new StatementNames()): typeof pg.Client {
  const WrappedQuery = wrappedQueryClass(pgModule);
  return class PoolClient extends pgModule.Client {
    /** Kysely's `begin` was answered and not sent yet. */
    private beginKept = false;
    /** Between Kysely's `begin` and its `commit` or `rollback`. */
    private inTransaction = false;
    /** A thenCommit() statement committed the transaction; Kysely's `commit` is still to come. */
    private committed = false;
    /** A statement marked WITH_BEGIN_MARK, kept with BEGIN for the next statement. */
    private kept: KeptStatement | null = null;

    // `pg`'s query() has many overloads; this one takes them all and passes the others through.
    override query(...args: unknown[]): never {
      const [text, values, callback] = args;
      const passThrough = () => (super.query as (...a: unknown[]) => never)(...args);
      if (typeof text !== 'string' || !Array.isArray(values) || callback !== undefined) {
        if (this.beginKept || this.committed) throw new Error('pg client: a query of another form inside a transaction held by this client');
        return passThrough();
      }
      const ends = (text === 'commit' || text === 'rollback') && values.length === 0;
      if (this.committed) {
        if (!ends) return Promise.reject(new Error('pg client: a statement after its transaction committed (thenCommit marks the last one)')) as never;
        this.committed = false;
        this.inTransaction = false;
        return Promise.resolve(answered(text.toUpperCase())) as never;
      }
      if (text === 'begin' && values.length === 0 && !this.inTransaction) {
        this.beginKept = true;
        this.inTransaction = true;
        return Promise.resolve(answered('BEGIN')) as never;
      }
      if (this.beginKept && this.kept === null && text.endsWith(WITH_BEGIN_MARK)) {
        this.kept = { text, values };
        return Promise.resolve(answered('KEPT')) as never;
      }
      if (ends) this.inTransaction = false;
      const name = names.nameOf(text);
      const commit = this.inTransaction && text.endsWith(THEN_COMMIT_MARK);
      if (this.beginKept) {
        this.beginKept = false;
        const first = this.kept;
        this.kept = null;
        // Nothing was sent: there is no transaction to end.
        if (ends) return Promise.resolve(answered(text.toUpperCase())) as never;
        const connection = (this as unknown as { connection: WireConnection }).connection;
        const extended = name !== undefined || values.length > 0;
        const parsedHere = name === undefined || connection.parsedStatements[name] === text;
        if (extended && parsedHere) return this.send(new WrappedQuery({ text, values, name }, { begin: true, first, commit }), commit) as never;
        const begun = first
          ? this.send(new WrappedQuery({ text: first.text, values: first.values }, { begin: true, first: null, commit: false }), false)
          : (super.query('BEGIN') as Promise<unknown>);
        return begun.then(() => this.run(text, values, name, commit)) as never;
      }
      return this.run(text, values, name, commit) as never;
    }

    /** The statement, named when `names` gives it a name, with COMMIT when `commit`. */
    private run(text: string, values: unknown[], name: string | undefined, commit: boolean): Promise<pg.QueryResult> {
      if (commit) return this.send(new WrappedQuery({ text, values, name }, { begin: false, first: null, commit: true }), true);
      if (name === undefined) return super.query(text, values);
      return this.send(new pgModule.Query({ name, text, values }), false);
    }

    /**
     * A query object, as a promise of its result; a named statement's failure is told to
     * `names`. After a statement that carried COMMIT and succeeded, the transaction is over.
     */
    private send(query: pg.Query, commits: boolean): Promise<pg.QueryResult> {
      return new Promise<pg.QueryResult>((resolve, reject) => {
        (query as unknown as { callback: (error: Error | undefined, result: pg.QueryResult) => void }).callback = (error, result) => {
          if (!error) {
            if (commits) this.committed = true;
            return resolve(result);
          }
          if ((query as unknown as { name?: string }).name !== undefined) names.failed(error);
          reject(error);
        };
        super.query(query);
      });
    }
  };
}

/**
 * `Client` whose every statement Kysely sends must be answered within `ms`: past it the client is
 * ended, which destroys the socket of a client with a statement in flight (`pg`'s `end()`). The
 * statement then fails as on a lost connection ("Connection terminated", src/db/errors.ts) and the
 * pool drops the client, so a server that accepts connections but never answers (a replica stopped,
 * a network that black-holes) holds neither the read nor a pool slot past the bound. `pg`'s own
 * `query_timeout` answers the caller but keeps the connection, whose late answer would then be read
 * as the next statement's.
 */
export function withStatementDeadline(Client: typeof pg.Client, ms: number): typeof pg.Client {
  return class DeadlineClient extends Client {
    override query(...args: unknown[]): never {
      const answer = (super.query as (...a: unknown[]) => unknown)(...args);
      if (!(answer instanceof Promise)) return answer as never;
      const timer = setTimeout(() => void this.end().catch(() => {}), ms);
      return answer.finally(() => clearTimeout(timer)) as never;
    }
  };
}

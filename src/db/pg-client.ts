/**
 * The PostgreSQL pool's client class: how each statement Kysely hands `pg` reaches PostgreSQL.
 *
 * 1. A statement marked `prepared()` runs as a named prepared statement once the process ran it
 *    often enough (src/db/prepared-statements.ts says which and when).
 * 2. A transaction's BEGIN travels with its first statement (issue 20). Kysely sends `begin` and
 *    waits for its answer before the first statement, so every transaction paid one more round
 *    trip than it has statements: one more send for the server (under load, `writev` was a fifth
 *    of its CPU samples, each send waking PostgreSQL's backend on the other core) and one more
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
 * Only the call Kysely makes, `query(text, values)` awaited, is changed; every other form of
 * `query()` (callbacks, query objects, a LISTEN client's) passes through as `pg` has it.
 */
import type pg from 'pg';
import { StatementNames } from './prepared-statements.js';

/** What `pg` answers for a statement that returns no rows; Kysely reads `command`, `rowCount` and `rows`. */
function answered(command: string) {
  return { command, rowCount: null, oid: 0, rows: [], fields: [] };
}

/** The pieces of `pg`'s Query and Connection this module uses (they are not in @types/pg). */
interface WireConnection {
  parsedStatements: Record<string, string>;
  parse(query: { text: string; name?: string }): void;
  bind(config: { statement?: string; portal?: string; values?: unknown[] }): void;
  execute(config: { portal?: string }): void;
}
interface QueryInternals {
  prepare(connection: WireConnection): void;
  handleCommandComplete(message: unknown, connection: WireConnection): void;
}
type QueryClass = new (config: pg.QueryConfig) => pg.Query;

/**
 * A `pg` query that sends an unnamed BEGIN (Parse, Bind, Execute, no Sync) before its own
 * messages, and passes on every answer but BEGIN's CommandComplete.
 */
function queryAfterBeginClass(pgModule: typeof pg): QueryClass {
  const Base = pgModule.Query as unknown as new (config: unknown) => QueryInternals;
  class QueryAfterBegin extends Base {
    private beginAnswered = false;

    /** Always by the extended protocol, so that the statement shares BEGIN's one Sync. */
    requiresPreparation(): boolean {
      return true;
    }

    override prepare(connection: WireConnection): void {
      connection.parse({ text: 'BEGIN', name: '' });
      connection.bind({ statement: '', portal: '', values: [] });
      connection.execute({ portal: '' });
      super.prepare(connection);
    }

    override handleCommandComplete(message: unknown, connection: WireConnection): void {
      if (!this.beginAnswered) {
        this.beginAnswered = true;
        return;
      }
      super.handleCommandComplete(message, connection);
    }
  }
  return QueryAfterBegin as unknown as QueryClass;
}

/** The pool's client class (`new pg.Pool({ Client })`): see the top of this file. */
export function poolClient(pgModule: typeof pg, names = new StatementNames()): typeof pg.Client {
  const QueryAfterBegin = queryAfterBeginClass(pgModule);
  return class PoolClient extends pgModule.Client {
    /** Kysely's `begin` was answered and not sent yet. */
    private beginKept = false;

    // `pg`'s query() has many overloads; this one takes them all and passes the others through.
    override query(...args: unknown[]): never {
      const [text, values, callback] = args;
      const passThrough = () => (super.query as (...a: unknown[]) => never)(...args);
      if (typeof text !== 'string' || !Array.isArray(values) || callback !== undefined) {
        if (this.beginKept) throw new Error('pg client: a query of another form after a kept BEGIN');
        return passThrough();
      }
      if (text === 'begin' && values.length === 0 && !this.beginKept) {
        this.beginKept = true;
        return Promise.resolve(answered('BEGIN')) as never;
      }
      const name = names.nameOf(text);
      if (this.beginKept) {
        this.beginKept = false;
        // Nothing was sent: there is no transaction to end.
        if ((text === 'commit' || text === 'rollback') && values.length === 0) return Promise.resolve(answered(text.toUpperCase())) as never;
        const connection = (this as unknown as { connection: WireConnection }).connection;
        const extended = name !== undefined || values.length > 0;
        const parsedHere = name === undefined || connection.parsedStatements[name] === text;
        if (extended && parsedHere) return this.send(new QueryAfterBegin({ text, values, name })) as never;
        return (super.query('BEGIN') as Promise<unknown>).then(() => this.run(text, values, name)) as never;
      }
      return this.run(text, values, name) as never;
    }

    /** The statement, named when `names` gives it a name. */
    private run(text: string, values: unknown[], name: string | undefined): Promise<pg.QueryResult> {
      if (name === undefined) return super.query(text, values);
      return this.send(new pgModule.Query({ name, text, values }));
    }

    /** A query object, as a promise of its result; a named statement's failure is told to `names`. */
    private send(query: pg.Query): Promise<pg.QueryResult> {
      return new Promise<pg.QueryResult>((resolve, reject) => {
        (query as unknown as { callback: (error: Error | undefined, result: pg.QueryResult) => void }).callback = (error, result) => {
          if (!error) return resolve(result);
          if ((query as unknown as { name?: string }).name !== undefined) names.failed(error);
          reject(error);
        };
        super.query(query);
      });
    }
  };
}

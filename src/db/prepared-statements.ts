/**
 * Named prepared statements on PostgreSQL for the statements of the hot write paths.
 *
 * Kysely hands `pg` each statement as text and parameters, which `pg` sends unnamed:
 * PostgreSQL parses and plans it again on every execution, and for the write paths that is a
 * third or more of what the database does: the same statements in pgbench cost PostgreSQL
 * about half the CPU prepared as unnamed (bench:pgbench, `-M prepared` against `-M extended`;
 * the figures are in docs/performance.md). Forcing a new plan at every
 * execution (`plan_cache_mode = force_custom_plan`) loses all of it: the gain is the plan
 * PostgreSQL keeps, and it keeps one only for a named statement.
 *
 * A kept (generic) plan is made without the parameters' values, so it must not depend on
 * them. That is why naming is chosen statement by statement, with `prepared()`, and never for
 * all: a generic plan of "this clinic's leads with this phone or this email" made while the
 * table was empty scanned the whole clinic (seen in bench:api: POST /leads cost PostgreSQL two
 * to three times its CPU). A statement earns `prepared()` when any plan of it is a
 * primary-key or unique-key lookup, an insert, a function call or an index lookup on every
 * column of its index (the duplicate searches are written as one lookup per contact for that),
 * or reads one clinic's rows whole (the count of a limited clinic's patients), or reads a page
 * of one clinic's rows in the order of the index that leads with the clinic (the appointments'
 * page of a sync, unfiltered: src/modules/appointments/store.ts).
 *
 * `prepared()` puts PREPARED_MARK at the head of the statement's text; the pool's client class
 * (src/db/pg-client.ts) gives each such text a name, the same on every connection, and each
 * connection prepares it the first time it sends it (in the same round trip), then only binds
 * and executes it. PostgreSQL plans the first five executions for their values and then keeps
 * a generic plan when it is estimated no dearer (`plan_cache_mode = auto`, the default).
 * Statements without the mark run unnamed, as before; PGlite ignores the mark (a comment).
 *
 * Not from the first execution: a plan decided while a table is nearly empty finds every index
 * that leads with the clinic equally cheap, and it stays after the table has grown, until
 * PostgreSQL next analyses it. bench:api's leads, on a table empty at the start, got "the
 * clinic's leads, filtered by phone" that way, even written as one lookup per contact (several
 * times the PostgreSQL CPU a lead, in bench:api and in pgbench's first prepared run on an empty
 * table).
 * So a marked text gets its name once this process has run it PREPARE_AFTER times, when the
 * tables it writes to hold that many more rows.
 *
 * `DB_PREPARE_AFTER=0` names none (a pooler that does not keep prepared statements, such as
 * PgBouncer in transaction mode before 1.21). At most MAX_NAMED texts get a name (each connection keeps at most that many prepared
 * statements); past that, marked statements too run unnamed.
 *
 * A schema change while the process runs (a migration by a newer release) can make a kept plan
 * answer with other columns: PostgreSQL then refuses it ("cached plan must not change result
 * type", SQLSTATE 0A000) and the statement fails. On that error every text is given a new name,
 * so each connection prepares its statements again against the new schema: the statements in
 * flight fail once, and no later one.
 */
import { sql, type Compilable, type RawBuilder } from 'kysely';

export const PREPARED_MARK = '/* prepared */';
const PREPARE_AFTER = 1_000;
const MAX_NAMED = 200;

/** The statement, marked to run as a named prepared statement on PostgreSQL (see above). */
export function prepared<R>(statement: RawBuilder<R> | Compilable<R>): RawBuilder<R> {
  return sql<R>`${sql.raw(PREPARED_MARK)} ${statement}`;
}

export class StatementNames {
  /** A marked text's name, or how many times it ran unnamed so far. */
  private texts = new Map<string, string | number>();
  private named = 0;
  private generation = 0;

  private readonly limits: { prepareAfter: number; maxNamed: number };

  constructor(limits: { prepareAfter?: number; maxNamed?: number } = {}) {
    this.limits = { prepareAfter: limits.prepareAfter ?? PREPARE_AFTER, maxNamed: limits.maxNamed ?? MAX_NAMED };
  }

  /** The name of a marked statement's text; undefined while it runs unnamed (unmarked, too new, past the bound, or naming off). */
  nameOf(text: string): string | undefined {
    if (this.limits.prepareAfter === 0 || !text.startsWith(PREPARED_MARK)) return undefined;
    const known = this.texts.get(text);
    if (typeof known === 'string') return known;
    if (this.named >= this.limits.maxNamed) return undefined;
    const runs = (known ?? 0) + 1;
    if (runs < this.limits.prepareAfter) {
      // Marked texts are the code's own statements, a few dozen shapes: the counts stay few.
      this.texts.set(text, runs);
      return undefined;
    }
    const name = `dcm_${this.generation}_${this.named++}`;
    this.texts.set(text, name);
    return name;
  }

  /** After a named statement failed: a plan outdated by a schema change renames every text. */
  failed(error: unknown): void {
    if (!isStalePlan(error)) return;
    this.generation += 1;
    this.named = 0;
    this.texts = new Map();
  }
}

function isStalePlan(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e?.code === '0A000' && typeof e.message === 'string' && e.message.includes('cached plan must not change result type');
}

/**
 * A transaction's last statement, with its COMMIT in the same round trip.
 *
 * Kysely commits after the transaction's callback returns: one more round trip after the last
 * statement, for every write. `thenCommit()` marks the last statement; on PostgreSQL the pool's
 * client class (src/db/pg-client.ts) sends COMMIT's messages after the statement's, before their
 * one Sync, and answers Kysely's `commit` at once. With one Sync they are one unit: when the
 * statement fails, PostgreSQL skips the COMMIT and the transaction rolls back. PGlite reads the
 * mark as a comment and commits when Kysely says so, after the callback.
 *
 * So the statement itself must make every check the store would make on its answer before
 * committing. Each such check is a `commitCheck()` given to `lastStatement()`: where one holds,
 * the statement calls `commit_refused` (migration 0106) and fails with its SQLSTATE (DC001); the
 * transaction rolls back and `withCommitInLast` runs it again the usual way, where the same
 * checks are columns of the answer and `read` names the outcome of the first that held (a
 * duplicate, a limit), or the store finishes the case (an event to record another way). The
 * common case commits in one round trip fewer; the rare one costs one transaction more.
 *
 * After the marked statement the transaction is over on PostgreSQL: nothing may follow it but
 * the return of the callback (pg-client.ts refuses another statement).
 */
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';

export const THEN_COMMIT_MARK = '/* then commit */';

/** The SQLSTATE of `commit_refused` (migration 0106). */
const COMMIT_REFUSED = 'DC001';

/** The statement, marked to carry its transaction's COMMIT (see above). */
export function thenCommit<R>(statement: RawBuilder<R>): RawBuilder<R> {
  return sql<R>`${statement} ${sql.raw(THEN_COMMIT_MARK)}`;
}

/**
 * A check the last statement makes before its COMMIT, declared once: `when`, its SQL condition
 * over the CTE `answer`, and `outcome`, what the store answers when it holds (a duplicate, a
 * limit). The same declaration refuses the COMMIT on the fast path and, on the retry, names the
 * outcome read from the answer's row, so the two cannot drift. A check without an outcome only
 * refuses the COMMIT: its case is the store's to finish after the statement (an event recorded
 * another way), and the row is its answer.
 */
interface CommitCheck<A, O> {
  reason: string;
  when: Expression<SqlBool>;
  outcome?: (answer: A) => O;
}

export function commitCheck<A, O = never>(reason: string, check: { when: Expression<SqlBool>; outcome?: (answer: A) => O }): CommitCheck<A, O> {
  return { reason, ...check };
}

/** The outcome of a commitCheck list, or never when none has one. */
type OutcomeOf<C> = C extends CommitCheck<never, infer O> ? O : never;

/** A statement built by lastStatement and how to read its rows. */
interface LastStatement<A, O> {
  statement: RawBuilder<A>;
  /**
   * The answer's rows, and the outcome of the first check that held on them (checks in their
   * order, rows in theirs), if any. When the statement committed, none held: it would have failed.
   */
  read(rows: A[]): { rows: A[]; outcome: O | undefined };
}

/** The column of the i-th check's condition in the answer of a statement that does not commit. */
const checkColumn = (i: number) => `commit_check_${i}`;

/**
 * A statement of data-modifying CTEs (`WITH …`) and the answer read from them, with its checks.
 * When `commits`, it is the transaction's last and carries the COMMIT: the answer is computed
 * once, as the CTE `answer` (MATERIALIZED, so that a volatile call in it such as `record_event`
 * runs once, and not once more in each condition), and each check that holds fails the statement
 * (`commit_refused`, naming the first). Otherwise the same answer, with the condition of each
 * check that has an outcome as a column, read by `read` and dropped from the rows (without such
 * a check, the plain statement).
 */
export function lastStatement<A, C extends CommitCheck<A, unknown>>(
  ctes: RawBuilder<unknown>,
  answer: RawBuilder<unknown>,
  { commits, checks }: { commits: boolean; checks: readonly C[] },
): LastStatement<A, OutcomeOf<C>> {
  if (commits) {
    const cases = checks.map(({ reason, when }) => sql`WHEN ${when} THEN commit_refused(${reason})`);
    return {
      statement: thenCommit(sql<A>`${ctes}, answer AS MATERIALIZED (${answer})
    SELECT * FROM answer WHERE (CASE ${sql.join(cases, sql` `)} END) IS NULL`),
      read: (rows) => ({ rows, outcome: undefined }),
    };
  }
  // Only a check with an outcome is read: one that only refuses the COMMIT has nothing to name.
  const answering = checks.flatMap((check, i) => (check.outcome ? [{ column: checkColumn(i), check }] : []));
  if (answering.length === 0) return { statement: sql<A>`${ctes} ${answer}`, read: (rows) => ({ rows, outcome: undefined }) };
  const columns = answering.map(({ column, check }) => sql`(${check.when}) AS ${sql.ref(column)}`);
  return {
    statement: sql<A>`${ctes}, answer AS MATERIALIZED (${answer})
    SELECT answer.*, ${sql.join(columns)} FROM answer`,
    read(rows) {
      let outcome: OutcomeOf<C> | undefined;
      const answers = rows.map((row) => {
        const plain = { ...row } as Record<string, unknown>;
        for (const { column, check } of answering) {
          if (outcome === undefined && plain[column] === true) outcome = check.outcome!(row) as OutcomeOf<C>;
          delete plain[column];
        }
        return plain as A;
      });
      return { rows: answers, outcome };
    },
  };
}

/** Whether a statement failed because one of its lastStatement conditions held. */
export function isCommitRefused(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === COMMIT_REFUSED;
}

/**
 * `attempt(true)`, a transaction whose last statement carries the COMMIT; when that statement
 * refused to commit, `attempt(false)`, the same transaction the usual way.
 */
export async function withCommitInLast<T>(attempt: (commits: boolean) => Promise<T>): Promise<T> {
  try {
    return await attempt(true);
  } catch (error) {
    if (!isCommitRefused(error)) throw error;
    return attempt(false);
  }
}

/**
 * A transaction's last statement, with its COMMIT in the same round trip (issue 20).
 *
 * Kysely commits after the transaction's callback returns: one more round trip after the last
 * statement, for every write. `thenCommit()` marks the last statement; on PostgreSQL the pool's
 * client class (src/db/pg-client.ts) sends COMMIT's messages after the statement's, before their
 * one Sync, and answers Kysely's `commit` at once. With one Sync they are one unit: when the
 * statement fails, PostgreSQL skips the COMMIT and the transaction rolls back. PGlite reads the
 * mark as a comment and commits when Kysely says so, after the callback.
 *
 * So the statement itself must make every check the service would make on its answer before
 * committing. Each such check is a condition given to `lastStatement()`: where one holds, the
 * statement calls `commit_refused` (migration 0106) and fails with its SQLSTATE (DC001); the
 * transaction rolls back and `withCommitInLast` runs it again the usual way, which sees the same
 * case and answers as it always did (a duplicate, a limit, an event to record another way). The
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
 * A statement of data-modifying CTEs (`WITH …`) and the answer read from them. When `commits`, it
 * is the transaction's last and carries the COMMIT: the answer is computed once, as the CTE
 * `answer` (MATERIALIZED, so that a volatile call in it such as `record_event` runs once, and not
 * once more in each condition), and each of `refuseWhen`'s conditions over `answer` that holds
 * fails the statement (`commit_refused`, naming the first). Otherwise, the plain statement.
 */
export function lastStatement<R>(
  ctes: RawBuilder<unknown>,
  answer: RawBuilder<unknown>,
  { commits, refuseWhen }: { commits: boolean; refuseWhen: Record<string, Expression<SqlBool>> },
): RawBuilder<R> {
  if (!commits) return sql<R>`${ctes} ${answer}`;
  const cases = Object.entries(refuseWhen).map(([reason, holds]) => sql`WHEN ${holds} THEN commit_refused(${reason})`);
  return thenCommit(sql<R>`${ctes}, answer AS MATERIALIZED (${answer})
    SELECT * FROM answer WHERE (CASE ${sql.join(cases, sql` `)} END) IS NULL`);
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

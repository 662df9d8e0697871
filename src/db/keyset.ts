/** Keyset paging: rows strictly after the last row of the previous page, in (a, b) order. */
import { sql, type Compilable, type Expression, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { decodeKeyset, encodeKeyset, pageOf } from '../core/cursor.js';

export function after(columns: [string, string], values: [unknown, unknown], direction: 'asc' | 'desc' = 'asc'): Expression<SqlBool> {
  const op = direction === 'asc' ? sql`>` : sql`<`;
  return sql<SqlBool>`(${sql.ref(columns[0])}, ${sql.ref(columns[1])}) ${op} (${values[0]}, ${values[1]})`;
}

/**
 * One page of a list in keyset order (the shape every list shares): the rows after the
 * cursor, ordered by (`columns[0]`, `columns[1]`), `limit + 1` fetched so a full page knows
 * there is more, and the signed cursor after its last row. `at` reads the row's timestamp;
 * `run`, when given, runs the page's statement (to run it prepared, for one).
 */
export async function keysetPage<R extends { id: string }>(
  // The list's query, any table; Kysely cannot type a column chosen at run time.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query: SelectQueryBuilder<any, any, R>,
  page: {
    columns: [string, string];
    at: (row: R) => Date;
    secret: string;
    scope: string;
    cursor?: string;
    limit: number;
    direction?: 'asc' | 'desc';
    run?: (statement: Compilable<R>) => Promise<R[]>;
  },
): Promise<{ items: R[]; nextCursor: string | null }> {
  const direction = page.direction ?? 'asc';
  const [column, tie] = page.columns;
  let q = query;
  if (page.cursor) q = q.where(after(page.columns, decodeKeyset(page.secret, page.scope, page.cursor), direction));
  const statement = q
    .orderBy(sql.ref(column), direction)
    .orderBy(sql.ref(tie), direction)
    .limit(page.limit + 1);
  const rows = page.run ? await page.run(statement) : await statement.execute();
  return pageOf(rows, page.limit, (r) => encodeKeyset(page.secret, page.scope, page.at(r), r.id));
}

/**
 * A list ordered by last change (the Clinic lists of /v1, quotes, invoices): a `keysetPage` by
 * (updated_at, id), oldest first, from `updatedSince` on, the cursor signed for the clinic, the
 * list and its filters (so a cursor of one list or filter is refused by another).
 */
export async function updatedPage<R extends { id: string; updated_at: Date }>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query: SelectQueryBuilder<any, any, R>,
  list: {
    name: string;
    clinicId: string;
    secret: string;
    q: { updatedSince?: string; cursor?: string; limit?: number };
    filters?: unknown[];
    /** The id column, qualified when the query's conditions name another table. */
    id?: string;
  },
): Promise<{ items: R[]; nextCursor: string | null }> {
  const { q } = list;
  const scope = `${list.name}:${list.clinicId}:${JSON.stringify([q.updatedSince ?? null, ...(list.filters ?? [])])}`;
  const filtered = q.updatedSince ? query.where('updated_at', '>=', new Date(q.updatedSince)) : query;
  return keysetPage(filtered, {
    columns: ['updated_at', list.id ?? 'id'],
    at: (r) => r.updated_at,
    secret: list.secret,
    scope,
    cursor: q.cursor,
    limit: q.limit ?? 50,
  });
}

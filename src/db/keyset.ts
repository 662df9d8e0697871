/** Keyset paging: rows strictly after the last row of the previous page, in (a, b) order. */
import { sql, type Expression, type SqlBool } from 'kysely';

export function after(columns: [string, string], values: [unknown, unknown], direction: 'asc' | 'desc' = 'asc'): Expression<SqlBool> {
  const op = direction === 'asc' ? sql`>` : sql`<`;
  return sql<SqlBool>`(${sql.ref(columns[0])}, ${sql.ref(columns[1])}) ${op} (${values[0]}, ${values[1]})`;
}

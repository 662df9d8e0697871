/**
 * An INSERT of one row that happens only when a condition holds, as one statement:
 * `INSERT INTO t (columns) SELECT values WHERE condition RETURNING *`. The condition may name
 * the CTEs of the statement it is part of (a search made in the same statement: one round trip
 * instead of two). PostgreSQL types the values by their target columns, as with VALUES.
 */
import { sql, type Insertable, type RawBuilder, type Selectable } from 'kysely';
import type { DB } from './schema.js';

export function insertWhere<T extends keyof DB & string>(table: T, values: Insertable<DB[T]>, condition: RawBuilder<boolean>): RawBuilder<Selectable<DB[T]>> {
  const entries = Object.entries(values as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return sql<Selectable<DB[T]>>`INSERT INTO ${sql.table(table)} (${sql.join(entries.map(([c]) => sql.ref(c)))})
    SELECT ${sql.join(entries.map(([, v]) => sql`${v}`))} WHERE ${condition} RETURNING *`;
}

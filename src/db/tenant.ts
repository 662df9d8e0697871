/**
 * Tenant scope (DESIGN convention 4): every query on tenant data names the clinic and,
 * for a key limited to facilities, the facilities it sees. The back office acts for a
 * clinic with every facility: `{ clinicId, facilityIds: null }`. An AuthContext is one.
 */
import { sql, type Expression, type SqlBool } from 'kysely';

export interface TenantScope {
  clinicId: string;
  /** null: every facility of the clinic. */
  facilityIds: readonly string[] | null;
}

export function backOffice(clinicId: string): TenantScope {
  return { clinicId, facilityIds: null };
}

/**
 * SQL condition: the row's facility column is one the scope sees.
 * Rows without a facility are seen only by an unrestricted scope.
 */
export function facilityVisible(column: string, scope: TenantScope): Expression<SqlBool> {
  if (scope.facilityIds === null) return sql<SqlBool>`true`;
  if (scope.facilityIds.length === 0) return sql<SqlBool>`false`;
  return sql<SqlBool>`${sql.ref(column)} = ANY(${[...scope.facilityIds]}::uuid[])`;
}

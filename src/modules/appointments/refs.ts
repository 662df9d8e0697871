/**
 * Checks that ids sent in a body name rows of the caller's clinic (and, for a key limited
 * to facilities, of a facility it sees). A wrong reference is `400 invalid_request` naming
 * the field: every wrong field is reported at once.
 */
import { sql } from 'kysely';
import type { Tx } from '../../context.js';
import type { TenantScope } from '../../db/tenant.js';
import type { ValidationIssue } from '../../core/errors.js';

export type RefTable = 'patients' | 'leads' | 'facilities' | 'doctors' | 'chairs' | 'calendars' | 'staff_profiles' | 'treatment_plans' | 'payment_plans' | 'installments' | 'invoices';

export interface Ref {
  field: string;
  table: RefTable;
  id: string | null | undefined;
}

export interface RefRow {
  id: string;
  facility_id: string | null;
}

/** Tables whose rows belong to a facility that a limited key must see. */
const FACILITY_SCOPED: ReadonlySet<RefTable> = new Set(['patients', 'leads', 'calendars', 'treatment_plans', 'payment_plans', 'invoices']);

export async function checkRefs(trx: Tx, scope: TenantScope, refs: Ref[]): Promise<{ issues: ValidationIssue[]; rows: Map<string, RefRow> }> {
  const issues: ValidationIssue[] = [];
  const rows = new Map<string, RefRow>();
  for (const ref of refs) {
    if (ref.id === null || ref.id === undefined) continue;
    const facilityColumn = ref.table === 'facilities' ? sql.ref('id') : ref.table === 'installments' ? sql`null::uuid` : sql.ref('facility_id');
    // Inactive people and chairs, and erased patients, cannot be referenced any more.
    const extra =
      ref.table === 'staff_profiles' || ref.table === 'doctors' || ref.table === 'chairs' ? sql`AND active` : ref.table === 'patients' ? sql`AND erased_at IS NULL` : sql``;
    const result = await sql<RefRow>`SELECT id, ${facilityColumn} AS facility_id FROM ${sql.table(ref.table)} WHERE id = ${ref.id} AND clinic_id = ${scope.clinicId} ${extra}`.execute(trx);
    const row = result.rows[0];
    const visible =
      row !== undefined &&
      (scope.facilityIds === null ||
        (!FACILITY_SCOPED.has(ref.table) && ref.table !== 'facilities') ||
        (row.facility_id !== null && scope.facilityIds.includes(row.facility_id.toLowerCase())));
    if (!visible) issues.push({ path: ref.field, message: 'non esiste in questo studio' });
    else rows.set(ref.field, row);
  }
  return { issues, rows };
}

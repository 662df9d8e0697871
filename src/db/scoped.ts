/**
 * Rows of the caller's tenant, found by id: the one rule for every module (DESIGN convention 4).
 *
 * Ids: compared by the database as `uuid` values, exactly as the caller sent them. The
 * database reads a uuid in either letter case (spec 2.1: `3F2B…` and `3f2b…` are one id), so
 * no code lower-cases an id before a query; ids compared in memory (a key's facility list)
 * are lower-cased once, where the key is read (src/modules/auth/authenticate.ts).
 *
 * Visibility: a row is visible when it belongs to the scope's clinic and, for a key limited to
 * facilities, to a facility the key sees; a row without a facility is seen only by an
 * unrestricted key. The back office acts for a clinic with every facility (`backOffice`).
 * What is not visible does not exist: `404 not_found` for the resource of the path
 * (findScoped, lockScoped), `400 invalid_request` naming the field for a reference in a
 * body (checkRefs). The rule is the same for every table, people and chairs included: a key
 * limited to facilities names only the doctors, chairs and staff it can list.
 */
import { sql, type Kysely, type RawBuilder, type Selectable, type SqlBool } from 'kysely';
import { ApiError, type ValidationIssue } from '../core/errors.js';
import type { DB } from './schema.js';
import { facilityVisible, type TenantScope } from './tenant.js';
import type { Db, Transaction } from './transaction.js';

/** Tables of tenant rows that belong to a facility (or to none). */
type ScopedTable = {
  [T in keyof DB]: DB[T] extends { id: unknown; clinic_id: unknown; facility_id: unknown } ? T : never;
}[keyof DB];

function scopedQuery(db: Db, table: ScopedTable, scope: TenantScope, id: string) {
  // One query shape for every table: Kysely cannot type a union of tables, the result is typed by the caller's table.
  return (db as unknown as Kysely<Record<string, { id: string; clinic_id: string; facility_id: string | null }>>)
    .selectFrom(table)
    .selectAll()
    .where('id', '=', id)
    .where('clinic_id', '=', scope.clinicId)
    .where(facilityVisible('facility_id', scope));
}

/** The row with this id that the scope sees, or null (a body reference the caller names as a field). */
export async function findScopedOrNull<T extends ScopedTable>(db: Db, table: T, scope: TenantScope, id: string): Promise<Selectable<DB[T]> | null> {
  const row = await scopedQuery(db, table, scope, id).executeTakeFirst();
  return (row as unknown as Selectable<DB[T]> | undefined) ?? null;
}

/** The row with this id that the scope sees, or 404 not_found. */
export async function findScoped<T extends ScopedTable>(db: Db, table: T, scope: TenantScope, id: string): Promise<Selectable<DB[T]>> {
  const row = await findScopedOrNull(db, table, scope, id);
  if (!row) throw ApiError.notFound();
  return row;
}

/** findScoped, locking the row for update in the command's transaction. */
export async function lockScoped<T extends ScopedTable>(trx: Transaction, table: T, scope: TenantScope, id: string): Promise<Selectable<DB[T]>> {
  const row = await scopedQuery(trx, table, scope, id).forUpdate().executeTakeFirst();
  if (!row) throw ApiError.notFound();
  return row as unknown as Selectable<DB[T]>;
}

export type RefTable =
  | 'patients'
  | 'leads'
  | 'facilities'
  | 'doctors'
  | 'chairs'
  | 'calendars'
  | 'staff_profiles'
  | 'treatment_plans'
  | 'payment_plans'
  | 'installments'
  | 'invoices'
  | 'appointments';

/** Tables whose rows belong to one patient (`patient_id`). */
export type PatientRefTable = 'treatment_plans' | 'payment_plans' | 'invoices' | 'appointments';

export type Ref =
  | { field: string; table: RefTable; id: string | null | undefined }
  /** `patientId`: the row must also be this patient's (a quote item's appointment, an invoice's quote). */
  | { field: string; table: PatientRefTable; id: string | null | undefined; patientId: string };

interface RefRow {
  id: string;
  facility_id: string | null;
}

/**
 * Checks that ids sent in a body name rows the caller may point to: visible as above, and
 * neither an inactive person (staff profile, doctor) or chair nor an erased patient — such
 * rows stay readable but take nothing new; with `patientId`, a row of that patient. A wrong
 * reference is `400 invalid_request` naming the field, with one message whether the row is
 * absent, of another clinic, of a facility the key cannot see, inactive or another patient's:
 * the answer tells nothing of what the key cannot see. Every wrong field is reported at once.
 */
export async function checkRefs(trx: Transaction, scope: TenantScope, refs: Ref[]): Promise<{ issues: ValidationIssue[]; rows: Map<string, RefRow> }> {
  const issues: ValidationIssue[] = [];
  const rows = new Map<string, RefRow>();
  const sent = refs.filter((ref) => ref.id !== null && ref.id !== undefined);
  if (sent.length === 0) return { issues, rows };
  // One statement for every reference (one round trip): a branch per reference, named by its position.
  const branches = sent.map((ref, i) => {
    const facilityColumn =
      ref.table === 'facilities'
        ? sql.ref('id')
        : ref.table === 'installments'
          ? sql`(SELECT p.facility_id FROM payment_plans p WHERE p.id = payment_plan_id)`
          : sql.ref('facility_id');
    // An installment belongs to the facility of its payment plan.
    const ofPatient = 'patientId' in ref ? sql`AND patient_id = ${ref.patientId}` : sql``;
    return sql`(SELECT ${sql.lit(i)}::int AS ref, id, ${facilityColumn}::uuid AS facility_id FROM ${sql.table(ref.table)} WHERE id = ${ref.id} AND clinic_id = ${scope.clinicId} AND ${takesReferences(ref.table)} ${ofPatient})`;
  });
  const found = await sql<RefRow & { ref: number }>`${sql.join(branches, sql` UNION ALL `)}`.execute(trx);
  const byRef = new Map(found.rows.map((r) => [r.ref, { id: r.id, facility_id: r.facility_id }]));
  sent.forEach((ref, i) => {
    const row = byRef.get(i);
    const issue = refIssue(scope, ref, row);
    if (issue) issues.push(issue);
    else rows.set(ref.field, row!);
  });
  return { issues, rows };
}

/**
 * What a row must be, besides the caller's, to take a new reference: an active staff profile,
 * doctor or chair; a patient not erased. SQL on the columns of `alias` (or unqualified), for
 * checkRefs and for a statement that reads a referenced row whole (then judged by refIssue).
 */
export function takesReferences(table: RefTable, alias?: string): RawBuilder<SqlBool> {
  const column = (name: string) => sql.ref(alias ? `${alias}.${name}` : name);
  if (table === 'staff_profiles' || table === 'doctors' || table === 'chairs') return sql<SqlBool>`${column('active')}`;
  if (table === 'patients') return sql<SqlBool>`${column('erased_at')} IS NULL`;
  return sql<SqlBool>`true`;
}

/**
 * checkRefs' verdict on one reference, given the row its statement found (undefined: none, or
 * an inactive or erased one): null when the caller may point to it, else the issue naming the
 * field. For a statement that reads a referenced row whole and checks it with the same rule.
 */
export function refIssue(scope: TenantScope, ref: Pick<Ref, 'field' | 'table'>, row: RefRow | undefined): ValidationIssue | null {
  // findScoped's visibility (facilityVisible): a row without a facility only for an unrestricted key.
  const visible = row !== undefined && (scope.facilityIds === null || (row.facility_id !== null && scope.facilityIds.includes(row.facility_id.toLowerCase())));
  return visible ? null : { path: ref.field, message: 'non esiste in questo studio' };
}

/**
 * The invoices' SQL: invoices with their lines, the quote items they may name, the open
 * invoices of a patient's balance; the rules are invoices.ts'.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Actor } from '../../core/actor.js';
import { hasSqlState, SQLSTATE } from '../../db/errors.js';
import { updatedPage } from '../../db/keyset.js';
import type { InvoiceLinesTable, InvoicesTable } from '../../db/tables/agenda.js';
import { facilityVisible } from '../../db/tenant.js';
import type { Db, Transaction } from '../../db/transaction.js';
import type { InvoiceListQuery } from './schema.js';

export type InvoiceRow = Selectable<InvoicesTable>;
export type LineRow = Selectable<InvoiceLinesTable>;
export type LineInsert = Omit<LineRow, 'id' | 'clinic_id' | 'invoice_id'>;

export async function invoiceLines(db: Db, clinicId: string, ids: string[]): Promise<LineRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('invoice_lines')
    .selectAll()
    .where('clinic_id', '=', clinicId)
    .where('invoice_id', 'in', ids)
    .orderBy('invoice_id')
    .orderBy('position')
    .execute();
}

/** The patient of the quote that holds this item, or null when the clinic has no such item. */
export async function quoteItemPatient(trx: Transaction, clinicId: string, itemId: string): Promise<string | null> {
  const item = await trx
    .selectFrom('treatment_plan_items as i')
    .innerJoin('treatment_plans as p', 'p.id', 'i.treatment_plan_id')
    .select('p.patient_id')
    .where('i.id', '=', itemId)
    .where('i.clinic_id', '=', clinicId)
    .executeTakeFirst();
  return item?.patient_id ?? null;
}

/**
 * The invoice and its lines, or `duplicate_number` when the clinic's unique index on the number
 * refuses it (two requests issuing the same number at once: the index decides). The transaction
 * is then aborted: the caller must end it.
 */
export async function insertInvoice(
  trx: Transaction,
  values: Insertable<InvoicesTable> & { id: string; clinic_id: string },
  lines: LineInsert[],
): Promise<{ kind: 'created'; row: InvoiceRow } | { kind: 'duplicate_number' }> {
  let row: InvoiceRow;
  try {
    row = await trx.insertInto('invoices').values(values).returningAll().executeTakeFirstOrThrow();
  } catch (error) {
    if (hasSqlState(error, SQLSTATE.uniqueViolation)) return { kind: 'duplicate_number' };
    throw error;
  }
  await trx
    .insertInto('invoice_lines')
    .values(lines.map((l) => ({ ...l, id: randomUUID(), clinic_id: values.clinic_id, invoice_id: values.id })))
    .execute();
  return { kind: 'created', row };
}

export async function voidInvoice(trx: Transaction, id: string): Promise<InvoiceRow> {
  return trx
    .updateTable('invoices')
    .set({ status: 'void', voided_at: sql`now()`, updated_at: sql`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A patient's issued (open or not yet paid) invoices, for the balance. */
export async function issuedInvoicesOf(db: Db, clinicId: string, patientId: string) {
  return db
    .selectFrom('invoices')
    .select(['status', 'total_amount', 'amount_paid', 'due_date'])
    .where('clinic_id', '=', clinicId)
    .where('patient_id', '=', patientId)
    .where('status', '=', 'issued')
    .execute();
}

export async function listInvoices(db: Db, actor: Actor, q: InvoiceListQuery): Promise<{ items: InvoiceRow[]; nextCursor: string | null }> {
  let query = db.selectFrom('invoices').selectAll().where('clinic_id', '=', actor.clinicId).where(facilityVisible('facility_id', actor));
  if (q.patientId) query = query.where('patient_id', '=', q.patientId);
  if (q.facilityId) query = query.where('facility_id', '=', q.facilityId);
  if (q.status) query = query.where('status', '=', q.status);
  if (q.issuedFrom) query = query.where('issued_at', '>=', new Date(q.issuedFrom));
  if (q.issuedTo) query = query.where('issued_at', '<', new Date(q.issuedTo));
  return updatedPage(query, {
    name: 'invoices',
    clinicId: actor.clinicId,
    secret: actor.cursorSecret,
    q,
    filters: [q.patientId?.toLowerCase() ?? null, q.facilityId?.toLowerCase() ?? null, q.status ?? null, q.issuedFrom ?? null, q.issuedTo ?? null],
  });
}

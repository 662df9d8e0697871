/**
 * The payments' SQL: the payment claimed by its reference, the open amounts locked, the
 * invoices and installments it pays and its allocations; the rules are payments.ts'.
 */
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Actor } from '../../core/actor.js';
import { keysetPage } from '../../db/keyset.js';
import type { PaymentAllocationsTable, PaymentsTable } from '../../db/tables/agenda.js';
import { facilityVisible, type TenantScope } from '../../db/tenant.js';
import type { Db, Transaction } from '../../db/transaction.js';
import type { InvoiceRow } from './invoice-store.js';
import type { InstallmentRow } from './plan-store.js';
import type { PaymentListQuery } from './schema.js';

export type PaymentRow = Selectable<PaymentsTable>;
export type AllocationRow = Selectable<PaymentAllocationsTable>;
type AllocationInsert = Insertable<PaymentAllocationsTable>;

/** What a payment goes to: one invoice, one installment or a patient's open amounts. */
export interface PaymentTarget {
  invoiceId?: string;
  installmentId?: string;
  patientId?: string;
}

export async function allocationsOf(db: Db, clinicId: string, ids: string[]): Promise<AllocationRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('payment_allocations')
    .selectAll()
    .where('clinic_id', '=', clinicId)
    .where('payment_id', 'in', ids)
    .orderBy('payment_id')
    .orderBy('position')
    .execute();
}

/** Who pays, from the target (already checked visible): the invoice's or the installment's patient, or the patient. */
export async function payerOf(
  trx: Transaction,
  target: PaymentTarget,
): Promise<{ patientId: string; facilityId: string | null; paymentPlanId: string | null }> {
  if (target.invoiceId) {
    const r = await trx.selectFrom('invoices').select(['patient_id', 'facility_id']).where('id', '=', target.invoiceId).executeTakeFirstOrThrow();
    return { patientId: r.patient_id, facilityId: r.facility_id, paymentPlanId: null };
  }
  if (target.installmentId) {
    const r = await trx
      .selectFrom('installments as i')
      .innerJoin('payment_plans as p', 'p.id', 'i.payment_plan_id')
      .select(['p.patient_id', 'p.facility_id', 'p.id'])
      .where('i.id', '=', target.installmentId)
      .executeTakeFirstOrThrow();
    return { patientId: r.patient_id, facilityId: r.facility_id, paymentPlanId: r.id };
  }
  const r = await trx.selectFrom('patients').select(['id', 'facility_id']).where('id', '=', target.patientId!).executeTakeFirstOrThrow();
  return { patientId: r.id, facilityId: r.facility_id, paymentPlanId: null };
}

/**
 * Claims the payment row first (INSERT … ON CONFLICT DO NOTHING on the clinic's unique
 * reference): a concurrent retry waits for the first attempt, then finds its row. `held`: the
 * reference is already recorded, with the payment holding it when the key sees its facility.
 */
export async function claimPayment(
  trx: Transaction,
  scope: TenantScope,
  values: Insertable<PaymentsTable>,
): Promise<{ kind: 'created'; row: PaymentRow } | { kind: 'held'; existing: PaymentRow | null }> {
  const inserted = await trx
    .insertInto('payments')
    .values(values)
    .onConflict((oc) => oc.columns(['clinic_id', 'reference']).where('reference', 'is not', null).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { kind: 'created', row: inserted };
  const existing = await trx
    .selectFrom('payments')
    .selectAll()
    .where('clinic_id', '=', scope.clinicId)
    .where('reference', '=', values.reference ?? null)
    .where(facilityVisible('facility_id', scope))
    .executeTakeFirst();
  return { kind: 'held', existing: existing ?? null };
}

/**
 * Locks what the payment may pay (invoices before installments, each by id: one lock order).
 * FOR NO KEY UPDATE, not FOR UPDATE: the payment row just inserted holds a KEY SHARE lock on
 * these rows (its foreign keys), which FOR UPDATE would wait for in the other transaction: two
 * payments at once would deadlock.
 */
export async function lockPayable(
  trx: Transaction,
  clinicId: string,
  target: PaymentTarget,
): Promise<{ invoices: InvoiceRow[]; installments: InstallmentRow[] }> {
  const invoices = await trx
    .selectFrom('invoices')
    .selectAll()
    .where('clinic_id', '=', clinicId)
    .$if(target.invoiceId !== undefined, (q) => q.where('id', '=', target.invoiceId!))
    .$if(target.patientId !== undefined, (q) => q.where('patient_id', '=', target.patientId!).where('status', '=', 'issued'))
    .$if(target.installmentId !== undefined, (q) => q.where(sql<boolean>`false`))
    .orderBy('id')
    .forNoKeyUpdate()
    .execute();
  const installments = await trx
    .selectFrom('installments')
    .selectAll()
    .where('clinic_id', '=', clinicId)
    .$if(target.installmentId !== undefined, (q) => q.where('id', '=', target.installmentId!))
    .$if(target.patientId !== undefined, (q) =>
      q
        .where('status', '<>', 'paid')
        .where('payment_plan_id', 'in', (s) =>
          s.selectFrom('payment_plans').select('id').where('clinic_id', '=', clinicId).where('patient_id', '=', target.patientId!),
        ),
    )
    .$if(target.invoiceId !== undefined, (q) => q.where(sql<boolean>`false`))
    .orderBy('id')
    .forNoKeyUpdate()
    .execute();
  return { invoices, installments };
}

/** Sets what is paid on an invoice; `paidAt` when it is paid in full. */
export async function payInvoice(trx: Transaction, id: string, amountPaid: number, paidAt: Date | null): Promise<InvoiceRow> {
  return trx
    .updateTable('invoices')
    .set({ amount_paid: amountPaid, ...(paidAt ? { status: 'paid', paid_at: paidAt } : {}), updated_at: sql`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Sets what is paid on an installment and how; `paidAt` when it is paid in full. */
export async function payInstallment(trx: Transaction, id: string, amountPaid: number, method: string, paidAt: Date | null): Promise<void> {
  await trx
    .updateTable('installments')
    .set({
      amount_paid: amountPaid,
      status: paidAt ? 'paid' : 'partially_paid',
      payment_method: method,
      ...(paidAt ? { paid_at: paidAt } : {}),
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .execute();
}

export async function insertAllocations(trx: Transaction, rows: AllocationInsert[]): Promise<void> {
  await trx.insertInto('payment_allocations').values(rows).execute();
}

/** Names on the payment the one invoice or installment it paid. */
export async function namePaid(
  trx: Transaction,
  id: string,
  paid: { invoice_id: string | null; installment_id: string | null; payment_plan_id: string | null },
): Promise<PaymentRow> {
  return trx.updateTable('payments').set(paid).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function listPayments(db: Db, actor: Actor, q: PaymentListQuery): Promise<{ items: PaymentRow[]; nextCursor: string | null }> {
  const filters = [q.createdSince, q.patientId?.toLowerCase(), q.facilityId?.toLowerCase(), q.invoiceId?.toLowerCase(), q.installmentId?.toLowerCase()];
  const cursorScope = `payments:${actor.clinicId}:${JSON.stringify(filters.map((v) => v ?? null))}`;
  let query = db.selectFrom('payments as p').selectAll('p').where('p.clinic_id', '=', actor.clinicId).where(facilityVisible('p.facility_id', actor));
  if (q.createdSince) query = query.where('p.created_at', '>=', new Date(q.createdSince));
  if (q.patientId) query = query.where('p.patient_id', '=', q.patientId);
  if (q.facilityId) query = query.where('p.facility_id', '=', q.facilityId);
  for (const [field, column] of [
    [q.invoiceId, 'a.invoice_id'],
    [q.installmentId, 'a.installment_id'],
  ] as const) {
    if (field)
      query = query.where(({ exists, selectFrom }) =>
        exists(selectFrom('payment_allocations as a').select('a.position').whereRef('a.payment_id', '=', 'p.id').where(column, '=', field)),
      );
  }
  return keysetPage(query, {
    columns: ['p.created_at', 'p.id'],
    at: (r) => r.created_at,
    secret: actor.cursorSecret,
    scope: cursorScope,
    cursor: q.cursor,
    limit: q.limit,
  });
}

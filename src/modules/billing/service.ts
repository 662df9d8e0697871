/**
 * Billing (spec 2.10, 4.8): treatment plans (quotes), payment plans with installments,
 * invoices and payments, each recording its catalogue event in its transaction.
 */
import type { Actor } from '../../core/actor.js';
import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import { hasSqlState, SQLSTATE } from '../../db/errors.js';
import { after } from '../../db/keyset.js';
import type { InstallmentsTable, InvoicesTable, PaymentPlansTable, TreatmentPlansTable } from '../../db/tables/agenda.js';
import { facilityVisible } from '../../db/tenant.js';
import { decodeKeyset, encodeKeyset, pageOf } from '../../core/cursor.js';
import { ApiError, type ValidationIssue } from '../../core/errors.js';
import { recordEvent } from '../../events/record.js';
import { checkRefs, lockScoped } from '../../db/scoped.js';
import { localParts } from '../calendars/timezone.js';
import type { Db } from '../../db/transaction.js';

type TreatmentPlanRow = Selectable<TreatmentPlansTable>;
type PaymentPlanRow = Selectable<PaymentPlansTable>;
type InstallmentRow = Selectable<InstallmentsTable>;
type InvoiceRow = Selectable<InvoicesTable>;

const cents = (n: number) => Math.round(n * 100);
const isCents = (n: number) => Math.abs(n * 100 - Math.round(n * 100)) < 1e-6;
const amountIssue = (path: string, n: number): ValidationIssue[] => (isCents(n) ? [] : [{ path, message: 'al massimo due decimali' }]);

// ---- Treatment plans ----

export const TREATMENT_PLAN_TRANSITIONS: Record<string, readonly string[]> = {
  draft: ['presented'],
  presented: ['accepted', 'rejected'],
  accepted: [],
  rejected: [],
};

export function treatmentPlanView(row: TreatmentPlanRow) {
  return {
    id: row.id,
    patientId: row.patient_id,
    facilityId: row.facility_id,
    title: row.title,
    totalAmount: row.total_amount,
    status: row.status,
    presentedAt: row.presented_at?.toISOString() ?? null,
    decidedAt: row.decided_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Event data: ids, status, amount and dates (the title may describe treatments: left out). */
function treatmentPlanEvent(row: TreatmentPlanRow): Record<string, unknown> {
  const { title: _title, ...rest } = treatmentPlanView(row);
  return rest;
}

const TP_EVENTS = { presented: 'treatment_plan.presented', accepted: 'treatment_plan.accepted', rejected: 'treatment_plan.rejected' } as const;

export async function createTreatmentPlan(
  db: Db,
  actor: Actor,
  input: { patientId: string; title?: string | null; totalAmount: number; status?: 'draft' | 'presented' },
): Promise<TreatmentPlanRow> {
  return db.transaction().execute(async (trx) => {
    const { issues, rows } = await checkRefs(trx, actor, [{ field: 'patientId', table: 'patients', id: input.patientId }]);
    issues.push(...amountIssue('totalAmount', input.totalAmount));
    if (issues.length > 0) throw ApiError.invalid('body', issues);
    const status = input.status ?? 'draft';
    const row = await trx
      .insertInto('treatment_plans')
      .values({
        id: randomUUID(),
        clinic_id: actor.clinicId,
        facility_id: rows.get('patientId')?.facility_id ?? null,
        patient_id: input.patientId,
        title: input.title ?? null,
        total_amount: input.totalAmount,
        status,
        presented_at: status === 'presented' ? sql`now()` : null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (status === 'presented')
      await recordEvent(trx, {
        log: actor.log,
        clinicId: actor.clinicId,
        type: TP_EVENTS.presented,
        facilityId: row.facility_id,
        data: treatmentPlanEvent(row),
      });
    return row;
  });
}

export async function setTreatmentPlanStatus(db: Db, actor: Actor, id: string, status: 'presented' | 'accepted' | 'rejected'): Promise<TreatmentPlanRow> {
  return db.transaction().execute(async (trx) => {
    const current = await lockScoped(trx, 'treatment_plans', actor, id);
    if (!TREATMENT_PLAN_TRANSITIONS[current.status]?.includes(status)) throw ApiError.conflict('invalid_transition', { from: current.status, to: status });
    const row = await trx
      .updateTable('treatment_plans')
      .set({
        status,
        ...(status === 'presented' ? { presented_at: sql`now()` } : { decided_at: sql`now()` }),
        updated_at: sql`now()`,
        version: sql`version + 1`,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordEvent(trx, { log: actor.log, clinicId: actor.clinicId, type: TP_EVENTS[status], facilityId: row.facility_id, data: treatmentPlanEvent(row) });
    return row;
  });
}

// ---- Payment plans ----

export interface InstallmentView {
  id: string;
  amount: number;
  amountPaid: number;
  dueDate: string;
  status: string;
  paidAt: string | null;
  paymentMethod: string | null;
  overdue: boolean;
}

export interface PaymentPlanView {
  id: string;
  patientId: string;
  treatmentPlanId: string | null;
  type: string;
  totalAmount: number;
  installmentCount: number;
  createdAt: string;
  installments: InstallmentView[];
}

function installmentView(row: InstallmentRow, today: string): InstallmentView {
  return {
    id: row.id,
    amount: row.amount,
    amountPaid: row.amount_paid,
    dueDate: row.due_date,
    status: row.status,
    paidAt: row.paid_at?.toISOString() ?? null,
    paymentMethod: row.payment_method,
    overdue: row.status !== 'paid' && row.due_date < today,
  };
}

function planView(plan: PaymentPlanRow, installments: InstallmentRow[], today: string): PaymentPlanView {
  return {
    id: plan.id,
    patientId: plan.patient_id,
    treatmentPlanId: plan.treatment_plan_id,
    type: plan.type,
    totalAmount: plan.total_amount,
    installmentCount: plan.installment_count,
    createdAt: plan.created_at.toISOString(),
    installments: installments.map((i) => installmentView(i, today)),
  };
}

/** Today's date in the clinic's timezone: an installment is overdue from the day after its due date. */
/** Today's date in the clinic's time zone (carried by the actor). */
export function clinicToday(actor: Pick<Actor, 'timeZone'>): string {
  const p = localParts(new Date(), actor.timeZone);
  return `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

export async function createPaymentPlan(
  db: Db,
  actor: Actor,
  input: { patientId: string; treatmentPlanId?: string | null; type?: string; installments: Array<{ amount: number; dueDate: string }> },
): Promise<PaymentPlanView> {
  const plan = await db.transaction().execute(async (trx) => {
    const { issues, rows } = await checkRefs(trx, actor, [
      { field: 'patientId', table: 'patients', id: input.patientId },
      { field: 'treatmentPlanId', table: 'treatment_plans', id: input.treatmentPlanId },
    ]);
    input.installments.forEach((i, n) => issues.push(...amountIssue(`installments.${n}.amount`, i.amount)));
    if (issues.length > 0) throw ApiError.invalid('body', issues);
    const total = input.installments.reduce((s, i) => s + cents(i.amount), 0) / 100;
    const plan = await trx
      .insertInto('payment_plans')
      .values({
        id: randomUUID(),
        clinic_id: actor.clinicId,
        facility_id: rows.get('patientId')?.facility_id ?? null,
        patient_id: input.patientId,
        treatment_plan_id: input.treatmentPlanId ?? null,
        type: input.type ?? 'installments',
        total_amount: total,
        installment_count: input.installments.length,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('installments')
      .values(
        input.installments.map((i, n) => ({
          id: randomUUID(),
          clinic_id: actor.clinicId,
          payment_plan_id: plan.id,
          seq: n + 1,
          amount: i.amount,
          due_date: i.dueDate,
        })),
      )
      .execute();
    return plan;
  });
  const installments = await db.selectFrom('installments').selectAll().where('payment_plan_id', '=', plan.id).orderBy('due_date').orderBy('seq').execute();
  return planView(plan, installments, clinicToday(actor));
}

export interface PlanListQuery {
  limit: number;
  cursor?: string;
  updatedSince?: string;
  patientId?: string;
  state: 'open' | 'overdue' | 'all';
}

export async function listPaymentPlans(db: Db, actor: Actor, q: PlanListQuery): Promise<{ data: PaymentPlanView[]; nextCursor: string | null }> {
  const today = clinicToday(actor);
  const cursorScope = `payment-plans:${actor.clinicId}:${JSON.stringify([q.state, q.updatedSince ?? null, q.patientId?.toLowerCase() ?? null])}`;
  let query = db.selectFrom('payment_plans as p').selectAll('p').where('p.clinic_id', '=', actor.clinicId).where(facilityVisible('p.facility_id', actor));
  if (q.updatedSince) query = query.where('p.updated_at', '>=', new Date(q.updatedSince));
  if (q.patientId) query = query.where('p.patient_id', '=', q.patientId);
  if (q.state !== 'all') {
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('installments as i')
          .select('i.id')
          .whereRef('i.payment_plan_id', '=', 'p.id')
          .where('i.status', '<>', 'paid')
          .$if(q.state === 'overdue', (s) => s.where('i.due_date', '<', today)),
      ),
    );
  }
  if (q.cursor) {
    query = query.where(after(['p.updated_at', 'p.id'], decodeKeyset(actor.cursorSecret, cursorScope, q.cursor)));
  }
  const rows = await query
    .orderBy('p.updated_at')
    .orderBy('p.id')
    .limit(q.limit + 1)
    .execute();
  const page = pageOf(rows, q.limit, (r) => encodeKeyset(actor.cursorSecret, cursorScope, r.updated_at, r.id));
  const ids = page.items.map((p) => p.id);
  const installments = ids.length
    ? await db.selectFrom('installments').selectAll().where('payment_plan_id', 'in', ids).orderBy('due_date').orderBy('seq').execute()
    : [];
  return {
    data: page.items.map((p) =>
      planView(
        p,
        installments.filter((i) => i.payment_plan_id === p.id),
        today,
      ),
    ),
    nextCursor: page.nextCursor,
  };
}

// ---- Invoices and payments ----

export function invoiceView(row: InvoiceRow) {
  return {
    id: row.id,
    patientId: row.patient_id,
    facilityId: row.facility_id,
    number: row.number,
    totalAmount: row.total_amount,
    amountPaid: row.amount_paid,
    status: row.status,
    issuedAt: row.issued_at.toISOString(),
    paidAt: row.paid_at?.toISOString() ?? null,
  };
}

export async function issueInvoice(
  db: Db,
  actor: Actor,
  input: { patientId: string; number: string; totalAmount: number; issuedAt?: string },
): Promise<InvoiceRow> {
  try {
    return await insertInvoice(db, actor, input);
  } catch (error) {
    // Two requests issuing the same number at once: the unique index decides.
    if (hasSqlState(error, SQLSTATE.uniqueViolation)) throw ApiError.conflict('duplicate_number');
    throw error;
  }
}

async function insertInvoice(db: Db, actor: Actor, input: { patientId: string; number: string; totalAmount: number; issuedAt?: string }): Promise<InvoiceRow> {
  return db.transaction().execute(async (trx) => {
    const { issues, rows } = await checkRefs(trx, actor, [{ field: 'patientId', table: 'patients', id: input.patientId }]);
    issues.push(...amountIssue('totalAmount', input.totalAmount));
    if (issues.length > 0) throw ApiError.invalid('body', issues);
    const taken = await trx.selectFrom('invoices').select('id').where('clinic_id', '=', actor.clinicId).where('number', '=', input.number).executeTakeFirst();
    if (taken) throw ApiError.conflict('duplicate_number', { invoiceId: taken.id });
    const row = await trx
      .insertInto('invoices')
      .values({
        id: randomUUID(),
        clinic_id: actor.clinicId,
        facility_id: rows.get('patientId')?.facility_id ?? null,
        patient_id: input.patientId,
        number: input.number,
        total_amount: input.totalAmount,
        ...(input.issuedAt ? { issued_at: new Date(input.issuedAt) } : {}),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordEvent(trx, { log: actor.log, clinicId: actor.clinicId, type: 'invoice.issued', facilityId: row.facility_id, data: invoiceView(row) });
    return row;
  });
}

export const PAYMENT_METHODS = ['cash', 'card', 'bank_transfer', 'financing', 'other'] as const;

export interface NewPayment {
  amount: number;
  method: (typeof PAYMENT_METHODS)[number];
  invoiceId?: string;
  installmentId?: string;
  receivedAt?: string;
}

/**
 * A payment toward an installment and/or an invoice: raises `amountPaid`; the installment is
 * `paid` (with `paidAt`, `paymentMethod`) when covered, `partially_paid` before; the invoice
 * becomes `paid` (and `invoice.paid` is recorded) when covered. More than the open balance is
 * `409 conflict`, reason `exceeds_balance`.
 */
export async function recordPayment(db: Db, actor: Actor, input: NewPayment) {
  const issues: ValidationIssue[] = amountIssue('amount', input.amount);
  if (!input.invoiceId && !input.installmentId) issues.push({ path: 'installmentId', message: 'serve installmentId, invoiceId o entrambi' });
  return db.transaction().execute(async (trx) => {
    const refs = await checkRefs(trx, actor, [
      { field: 'invoiceId', table: 'invoices', id: input.invoiceId },
      { field: 'installmentId', table: 'installments', id: input.installmentId },
    ]);
    issues.push(...refs.issues);
    if (issues.length > 0) throw ApiError.invalid('body', issues);
    const receivedAt = input.receivedAt ? new Date(input.receivedAt) : new Date();
    let patientId: string | null = null;
    let facilityId: string | null = null;
    let installment: InstallmentRow | undefined;
    let invoice: InvoiceRow | undefined;
    if (input.installmentId) {
      const current = await trx.selectFrom('installments').selectAll().where('id', '=', input.installmentId).forUpdate().executeTakeFirstOrThrow();
      const plan = await trx
        .selectFrom('payment_plans')
        .select(['patient_id', 'facility_id'])
        .where('id', '=', current.payment_plan_id)
        .executeTakeFirstOrThrow();
      patientId = plan.patient_id;
      facilityId = plan.facility_id;
      const paid = cents(current.amount_paid) + cents(input.amount);
      if (paid > cents(current.amount))
        throw ApiError.conflict('exceeds_balance', { field: 'installmentId', balance: (cents(current.amount) - cents(current.amount_paid)) / 100 });
      const full = paid === cents(current.amount);
      installment = await trx
        .updateTable('installments')
        .set({
          amount_paid: paid / 100,
          status: full ? 'paid' : 'partially_paid',
          payment_method: input.method,
          ...(full ? { paid_at: receivedAt } : {}),
          updated_at: sql`now()`,
        })
        .where('id', '=', current.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await trx
        .updateTable('payment_plans')
        .set({ updated_at: sql`now()` })
        .where('id', '=', current.payment_plan_id)
        .execute();
    }
    if (input.invoiceId) {
      const current = await trx.selectFrom('invoices').selectAll().where('id', '=', input.invoiceId).forUpdate().executeTakeFirstOrThrow();
      if (patientId !== null && current.patient_id !== patientId)
        throw ApiError.invalid('body', [{ path: 'invoiceId', message: 'la fattura è di un altro paziente' }]);
      patientId = current.patient_id;
      facilityId = current.facility_id;
      const paid = cents(current.amount_paid) + cents(input.amount);
      if (paid > cents(current.total_amount))
        throw ApiError.conflict('exceeds_balance', { field: 'invoiceId', balance: (cents(current.total_amount) - cents(current.amount_paid)) / 100 });
      const full = paid === cents(current.total_amount);
      invoice = await trx
        .updateTable('invoices')
        .set({ amount_paid: paid / 100, ...(full ? { status: 'paid', paid_at: receivedAt } : {}), updated_at: sql`now()` })
        .where('id', '=', current.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      if (full)
        await recordEvent(trx, { log: actor.log, clinicId: actor.clinicId, type: 'invoice.paid', facilityId: invoice.facility_id, data: invoiceView(invoice) });
    }
    const payment = await trx
      .insertInto('payments')
      .values({
        id: randomUUID(),
        clinic_id: actor.clinicId,
        facility_id: facilityId,
        patient_id: patientId!,
        invoice_id: input.invoiceId ?? null,
        installment_id: input.installmentId ?? null,
        amount: input.amount,
        method: input.method,
        received_at: receivedAt,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const view = {
      id: payment.id,
      patientId: payment.patient_id,
      invoiceId: payment.invoice_id,
      installmentId: payment.installment_id,
      amount: payment.amount,
      method: payment.method,
      receivedAt: payment.received_at.toISOString(),
    };
    await recordEvent(trx, { log: actor.log, clinicId: actor.clinicId, type: 'payment.received', facilityId, data: view });
    return {
      payment: view,
      installment: installment ? installmentView(installment, clinicToday(actor)) : null,
      invoice: invoice ? invoiceView(invoice) : null,
    };
  });
}

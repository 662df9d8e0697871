/**
 * Payments (issue 16): a payment the clinic or a provider received, toward one invoice, one
 * installment or a patient's oldest due amounts. Idempotent on the provider's `reference`
 * within the clinic, also under concurrent retries: the payment row is claimed first with
 * INSERT … ON CONFLICT DO NOTHING on a unique index, so a retry waits for the first attempt
 * and then finds its row (or, if that attempt was refused and rolled back, makes its own).
 * The balance is checked with the paid rows locked (SELECT … FOR UPDATE), so two different
 * payments can never together pay more than is open. A refused payment writes nothing.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import { checkRefs, findScoped } from '../../db/scoped.js';
import { keysetPage } from '../../db/keyset.js';
import type { PaymentAllocationsTable, PaymentsTable } from '../../db/tables/agenda.js';
import { facilityVisible } from '../../db/tenant.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { recordEvent } from '../../events/record.js';
import { invoiceDueCents, invoiceSummary, type InvoiceRow } from './invoices.js';
import { PAYMENT_TARGETS, paymentBodyIssues } from './checks.js';
import { CURRENCY, sumCents, toCents, toEuro } from './money.js';
import { touchPlans, type InstallmentRow } from './plans.js';
import type { NewPaymentInput, PaymentListQuery, PaymentView } from './schema.js';

type PaymentRow = Selectable<PaymentsTable>;
type AllocationRow = Selectable<PaymentAllocationsTable>;

const TARGETS = PAYMENT_TARGETS;

export function paymentView(row: PaymentRow, allocations: AllocationRow[]): PaymentView {
  return {
    id: row.id,
    patientId: row.patient_id,
    facilityId: row.facility_id,
    amount: Number(row.amount),
    currency: CURRENCY,
    method: row.method as PaymentView['method'],
    reference: row.reference,
    invoiceId: row.invoice_id,
    installmentId: row.installment_id,
    paymentPlanId: row.payment_plan_id,
    allocations: allocations.map((a) => ({ invoiceId: a.invoice_id, installmentId: a.installment_id, amount: Number(a.amount) })),
    receivedAt: row.received_at.toISOString(),
    createdAt: row.created_at.toISOString(),
  };
}

async function allocationsOf(db: Db, clinicId: string, ids: string[]): Promise<AllocationRow[]> {
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

/** What a retry with the same reference must repeat: amount, method, target and the time if sent. */
function fingerprint(input: NewPaymentInput): string {
  return JSON.stringify([
    toCents(input.amount),
    input.method,
    input.invoiceId?.toLowerCase() ?? null,
    input.installmentId?.toLowerCase() ?? null,
    input.patientId?.toLowerCase() ?? null,
    input.receivedAt ? new Date(input.receivedAt).toISOString() : null,
  ]);
}

/** An open amount a payment can go to, oldest due first. */
interface Open {
  invoice?: InvoiceRow;
  installment?: InstallmentRow;
  due: string;
  cents: number;
}

/**
 * Locks what the payment may pay (invoices before installments, each by id: one lock order)
 * and returns it oldest due first. FOR NO KEY UPDATE, not FOR UPDATE: the payment row just
 * inserted holds a KEY SHARE lock on these rows (its foreign keys), which FOR UPDATE would
 * wait for in the other transaction: two payments at once would deadlock.
 */
async function lockOpen(trx: Transaction, clinicId: string, target: { invoiceId?: string; installmentId?: string; patientId?: string }): Promise<Open[]> {
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
  const open: Open[] = [
    ...invoices.map((i) => ({ invoice: i, due: i.due_date ?? i.issued_at.toISOString().slice(0, 10), cents: invoiceDueCents(i) })),
    ...installments.map((i) => ({ installment: i, due: i.due_date, cents: toCents(i.amount) - toCents(i.amount_paid) })),
  ];
  return open.sort((a, b) => (a.due < b.due ? -1 : a.due > b.due ? 1 : 0));
}

/** Who the payment is for, from its target (already checked visible by checkRefs). */
async function payer(trx: Transaction, input: NewPaymentInput): Promise<{ patientId: string; facilityId: string | null; paymentPlanId: string | null }> {
  if (input.invoiceId) {
    const r = await trx.selectFrom('invoices').select(['patient_id', 'facility_id']).where('id', '=', input.invoiceId).executeTakeFirstOrThrow();
    return { patientId: r.patient_id, facilityId: r.facility_id, paymentPlanId: null };
  }
  if (input.installmentId) {
    const r = await trx
      .selectFrom('installments as i')
      .innerJoin('payment_plans as p', 'p.id', 'i.payment_plan_id')
      .select(['p.patient_id', 'p.facility_id', 'p.id'])
      .where('i.id', '=', input.installmentId)
      .executeTakeFirstOrThrow();
    return { patientId: r.patient_id, facilityId: r.facility_id, paymentPlanId: r.id };
  }
  const r = await trx.selectFrom('patients').select(['id', 'facility_id']).where('id', '=', input.patientId!).executeTakeFirstOrThrow();
  return { patientId: r.id, facilityId: r.facility_id, paymentPlanId: null };
}

/**
 * Records a payment: `created` false when its reference was already recorded with the same
 * request (the stored payment is answered unchanged). Updates invoices (paid when covered,
 * with `invoice.paid`), installments (paid when covered: no longer overdue) and their plans,
 * and records `payment.received`, all in one transaction.
 */
export async function recordPayment(db: Db, actor: Actor, input: NewPaymentInput): Promise<{ view: PaymentView; created: boolean }> {
  const issues = paymentBodyIssues(input);
  const result = await db.transaction().execute(async (trx) => {
    const refs = await checkRefs(trx, actor, [
      { field: 'invoiceId', table: 'invoices', id: input.invoiceId },
      { field: 'installmentId', table: 'installments', id: input.installmentId },
      { field: 'patientId', table: 'patients', id: input.patientId },
    ]);
    issues.push(...refs.issues);
    if (issues.length > 0) throw ApiError.invalid('body', issues);
    const who = await payer(trx, input);
    const print = fingerprint(input);
    const reference = input.reference ?? null;
    const inserted = await trx
      .insertInto('payments')
      .values({
        id: randomUUID(),
        clinic_id: actor.clinicId,
        facility_id: who.facilityId,
        patient_id: who.patientId,
        invoice_id: input.invoiceId ?? null,
        installment_id: input.installmentId ?? null,
        payment_plan_id: who.paymentPlanId,
        amount: input.amount,
        method: input.method,
        reference,
        request_fingerprint: print,
        received_at: input.receivedAt ? new Date(input.receivedAt) : new Date(),
      })
      .onConflict((oc) => oc.columns(['clinic_id', 'reference']).where('reference', 'is not', null).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!inserted) {
      const existing = await trx
        .selectFrom('payments')
        .selectAll()
        .where('clinic_id', '=', actor.clinicId)
        .where('reference', '=', reference)
        .where(facilityVisible('facility_id', actor))
        .executeTakeFirst();
      // The reference is the clinic's (the provider's id of one payment): a payment of a facility
      // the key cannot see holds it. Not 404 (the resource of the path exists) and not its id:
      // the reference is used, as for a payment the key sees that was another request (without
      // `details.paymentId`, which names only a payment the key sees).
      if (!existing) throw ApiError.conflict('reference_reused');
      if (existing.request_fingerprint !== print) throw ApiError.conflict('reference_reused', { paymentId: existing.id });
      return { row: existing, created: false };
    }
    return { row: await allocate(trx, actor, inserted, input), created: true };
  });
  return { view: paymentView(result.row, await allocationsOf(db, actor.clinicId, [result.row.id])), created: result.created };
}

/** Pays the open amounts with the payment (rows locked), or refuses with `exceeds_balance`. */
async function allocate(trx: Transaction, actor: Actor, payment: PaymentRow, input: NewPaymentInput): Promise<PaymentRow> {
  const open = (await lockOpen(trx, actor.clinicId, input)).filter((o) => o.cents > 0);
  const openCents = sumCents(open.map((o) => o.cents));
  let left = toCents(input.amount);
  if (left > openCents) {
    const field = TARGETS.find((t) => input[t] !== undefined)!;
    throw ApiError.conflict('exceeds_balance', { field, balance: toEuro(openCents) });
  }
  const allocations: Array<{ invoice_id: string | null; installment_id: string | null; cents: number }> = [];
  const plans = new Set<string>();
  const paidInvoices: InvoiceRow[] = [];
  for (const o of open) {
    if (left === 0) break;
    const cents = Math.min(left, o.cents);
    left -= cents;
    if (o.invoice) {
      const paid = toCents(o.invoice.amount_paid) + cents;
      const full = paid === toCents(o.invoice.total_amount);
      const row = await trx
        .updateTable('invoices')
        .set({ amount_paid: toEuro(paid), ...(full ? { status: 'paid', paid_at: payment.received_at } : {}), updated_at: sql`now()` })
        .where('id', '=', o.invoice.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      if (full) paidInvoices.push(row);
      allocations.push({ invoice_id: row.id, installment_id: null, cents });
    } else {
      const i = o.installment!;
      const paid = toCents(i.amount_paid) + cents;
      const full = paid === toCents(i.amount);
      await trx
        .updateTable('installments')
        .set({
          amount_paid: toEuro(paid),
          status: full ? 'paid' : 'partially_paid',
          payment_method: payment.method,
          ...(full ? { paid_at: payment.received_at } : {}),
          updated_at: sql`now()`,
        })
        .where('id', '=', i.id)
        .execute();
      plans.add(i.payment_plan_id);
      allocations.push({ invoice_id: null, installment_id: i.id, cents });
    }
  }
  await touchPlans(trx, [...plans]);
  await trx
    .insertInto('payment_allocations')
    .values(
      allocations.map((a, n) => ({
        clinic_id: actor.clinicId,
        payment_id: payment.id,
        position: n + 1,
        invoice_id: a.invoice_id,
        installment_id: a.installment_id,
        amount: toEuro(a.cents),
      })),
    )
    .execute();
  let row = payment;
  // Toward a patient: the payment names the invoice or installment when it paid exactly one.
  if (input.patientId && allocations.length === 1) {
    const only = allocations[0]!;
    const plan = only.installment_id ? open.find((o) => o.installment?.id === only.installment_id)!.installment!.payment_plan_id : null;
    row = await trx
      .updateTable('payments')
      .set({ invoice_id: only.invoice_id, installment_id: only.installment_id, payment_plan_id: plan })
      .where('id', '=', payment.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }
  const view = paymentView(
    row,
    allocations.map((a, n) => ({ ...a, clinic_id: actor.clinicId, payment_id: row.id, position: n + 1, amount: toEuro(a.cents) })),
  );
  await recordEvent(trx, { log: actor.log, clinicId: actor.clinicId, type: 'payment.received', facilityId: row.facility_id, data: view });
  for (const invoice of paidInvoices)
    await recordEvent(trx, { log: actor.log, clinicId: actor.clinicId, type: 'invoice.paid', facilityId: invoice.facility_id, data: invoiceSummary(invoice) });
  return row;
}

export async function findPayment(db: Db, actor: Actor, id: string): Promise<PaymentView> {
  const row = await findScoped(db, 'payments', actor, id);
  return paymentView(row, await allocationsOf(db, actor.clinicId, [row.id]));
}

export async function listPayments(db: Db, actor: Actor, q: PaymentListQuery): Promise<{ data: PaymentView[]; nextCursor: string | null }> {
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
  const page = await keysetPage(query, {
    columns: ['p.created_at', 'p.id'],
    at: (r) => r.created_at,
    secret: actor.cursorSecret,
    scope: cursorScope,
    cursor: q.cursor,
    limit: q.limit,
  });
  const allocations = await allocationsOf(
    db,
    actor.clinicId,
    page.items.map((r) => r.id),
  );
  return {
    data: page.items.map((r) =>
      paymentView(
        r,
        allocations.filter((a) => a.payment_id === r.id),
      ),
    ),
    nextCursor: page.nextCursor,
  };
}

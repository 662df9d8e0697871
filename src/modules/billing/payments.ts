/**
 * Payments: a payment the clinic or a provider received, toward one invoice, one
 * installment or a patient's oldest due amounts. Idempotent on the provider's `reference`
 * within the clinic, also under concurrent retries: the payment row is claimed first with
 * INSERT … ON CONFLICT DO NOTHING on a unique index, so a retry waits for the first attempt
 * and then finds its row (or, if that attempt was refused and rolled back, makes its own).
 * The balance is checked with the paid rows locked (SELECT … FOR UPDATE), so two different
 * payments can never together pay more than is open. A refused payment writes nothing.
 */
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import { checkRefs, findScoped } from '../../db/scoped.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { recordEvent } from '../../events/record.js';
import { invoiceDueCents, invoiceSummary, type InvoiceRow } from './invoices.js';
import { PAYMENT_TARGETS, paymentBodyIssues } from './checks.js';
import { CURRENCY, sumCents, toCents, toEuro } from './money.js';
import * as store from './payment-store.js';
import type { AllocationRow, PaymentRow, PaymentTarget } from './payment-store.js';
import { touchPlans, type InstallmentRow } from './plan-store.js';
import type { NewPaymentInput, PaymentListQuery, PaymentView } from './schema.js';

const TARGETS = PAYMENT_TARGETS;

function paymentView(row: PaymentRow, allocations: AllocationRow[]): PaymentView {
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

/** What the payment may pay (rows locked), oldest due first. */
async function lockOpen(trx: Transaction, clinicId: string, target: PaymentTarget): Promise<Open[]> {
  const { invoices, installments } = await store.lockPayable(trx, clinicId, target);
  const open: Open[] = [
    ...invoices.map((i) => ({ invoice: i, due: i.due_date ?? i.issued_at.toISOString().slice(0, 10), cents: invoiceDueCents(i) })),
    ...installments.map((i) => ({ installment: i, due: i.due_date, cents: toCents(i.amount) - toCents(i.amount_paid) })),
  ];
  return open.sort((a, b) => (a.due < b.due ? -1 : a.due > b.due ? 1 : 0));
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
    const who = await store.payerOf(trx, input);
    const print = fingerprint(input);
    const reference = input.reference ?? null;
    const claim = await store.claimPayment(trx, actor, {
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
    });
    if (claim.kind === 'held') {
      const existing = claim.existing;
      // The reference is the clinic's (the provider's id of one payment): a payment of a facility
      // the key cannot see holds it. Not 404 (the resource of the path exists) and not its id:
      // the reference is used, as for a payment the key sees that was another request (without
      // `details.paymentId`, which names only a payment the key sees).
      if (!existing) throw ApiError.conflict('reference_reused');
      if (existing.request_fingerprint !== print) throw ApiError.conflict('reference_reused', { paymentId: existing.id });
      return { row: existing, created: false };
    }
    return { row: await allocate(trx, actor, claim.row, input), created: true };
  });
  return { view: paymentView(result.row, await store.allocationsOf(db, actor.clinicId, [result.row.id])), created: result.created };
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
      const row = await store.payInvoice(trx, o.invoice.id, toEuro(paid), full ? payment.received_at : null);
      if (full) paidInvoices.push(row);
      allocations.push({ invoice_id: row.id, installment_id: null, cents });
    } else {
      const i = o.installment!;
      const paid = toCents(i.amount_paid) + cents;
      const full = paid === toCents(i.amount);
      await store.payInstallment(trx, i.id, toEuro(paid), payment.method, full ? payment.received_at : null);
      plans.add(i.payment_plan_id);
      allocations.push({ invoice_id: null, installment_id: i.id, cents });
    }
  }
  await touchPlans(trx, [...plans]);
  await store.insertAllocations(
    trx,
    allocations.map((a, n) => ({
      clinic_id: actor.clinicId,
      payment_id: payment.id,
      position: n + 1,
      invoice_id: a.invoice_id,
      installment_id: a.installment_id,
      amount: toEuro(a.cents),
    })),
  );
  let row = payment;
  // Toward a patient: the payment names the invoice or installment when it paid exactly one.
  if (input.patientId && allocations.length === 1) {
    const only = allocations[0]!;
    const plan = only.installment_id ? open.find((o) => o.installment?.id === only.installment_id)!.installment!.payment_plan_id : null;
    row = await store.namePaid(trx, payment.id, { invoice_id: only.invoice_id, installment_id: only.installment_id, payment_plan_id: plan });
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
  return paymentView(row, await store.allocationsOf(db, actor.clinicId, [row.id]));
}

export async function listPayments(db: Db, actor: Actor, q: PaymentListQuery): Promise<{ data: PaymentView[]; nextCursor: string | null }> {
  const page = await store.listPayments(db, actor, q);
  const allocations = await store.allocationsOf(
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

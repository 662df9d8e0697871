/**
 * Invoices: issued and voided by the back office (fiscal numbering belongs to the
 * clinic), read on /v1, paid by payments (src/modules/billing/payments.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actor.js';
import { ApiError, type ValidationIssue } from '../../core/errors.js';
import { checkRefs, findScoped, lockScoped } from '../../db/scoped.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { recordEvent } from '../../events/record.js';
import { invoiceBodyIssues } from './checks.js';
import { CURRENCY, STAMP_DUTY_CENTS, STAMP_DUTY_THRESHOLD_CENTS, sumCents, toCents, toEuro, vatCents } from './money.js';
import * as store from './invoice-store.js';
import type { InvoiceRow, LineInsert, LineRow } from './invoice-store.js';
import type { InvoiceListQuery, InvoiceView, NewInvoice } from './schema.js';

export type { InvoiceRow };

/** The one line of an invoice issued with a total only. */
const DEFAULT_LINE = 'Prestazioni odontoiatriche';

/** What is still to pay on an invoice, in cents (nothing once void). */
export function invoiceDueCents(row: Pick<InvoiceRow, 'status' | 'total_amount' | 'amount_paid'>): number {
  return row.status === 'void' ? 0 : toCents(row.total_amount) - toCents(row.amount_paid);
}

function lineView(row: LineRow) {
  return {
    id: row.id,
    position: row.position,
    description: row.description,
    quantity: row.quantity,
    unitAmount: Number(row.unit_amount),
    discount: Number(row.discount_amount),
    vatRate: Number(row.vat_rate),
    tax: Number(row.tax_amount),
    totalAmount: Number(row.total_amount),
    treatmentPlanItemId: row.treatment_plan_item_id,
  };
}

/** The invoice without its lines: what events carry (line descriptions may describe treatments). */
export function invoiceSummary(row: InvoiceRow): Omit<InvoiceView, 'lines'> {
  return {
    id: row.id,
    number: row.number,
    patientId: row.patient_id,
    facilityId: row.facility_id,
    treatmentPlanId: row.treatment_plan_id,
    status: row.status,
    currency: CURRENCY,
    subtotal: Number(row.subtotal_amount),
    discount: Number(row.discount_amount),
    tax: Number(row.tax_amount),
    stampDuty: Number(row.stamp_duty_amount),
    totalAmount: Number(row.total_amount),
    amountPaid: Number(row.amount_paid),
    amountDue: toEuro(invoiceDueCents(row)),
    dueDate: row.due_date,
    issuedAt: row.issued_at.toISOString(),
    paidAt: row.paid_at?.toISOString() ?? null,
    voidedAt: row.voided_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function invoiceView(row: InvoiceRow, lines: LineRow[]): InvoiceView {
  return { ...invoiceSummary(row), lines: lines.map(lineView) };
}

type PricedLine = LineInsert;

/** Prices the lines in integer cents (checked by invoiceBodyIssues); VAT per line, rounded half up to the cent. */
function priceLines(input: NewInvoice): { lines: PricedLine[]; subtotal: number; discount: number; tax: number; stamp: number } {
  const sent = input.lines ?? [{ description: DEFAULT_LINE, unitAmount: input.totalAmount ?? 0 }];
  const lines = sent.map((l, n) => {
    const quantity = l.quantity ?? 1;
    const gross = quantity * toCents(l.unitAmount);
    const discount = toCents(l.discount ?? 0);
    const rate = l.vatRate ?? 0;
    const tax = vatCents(gross - discount, rate);
    return {
      position: n + 1,
      description: l.description,
      quantity,
      unit_amount: l.unitAmount,
      discount_amount: toEuro(discount),
      vat_rate: rate,
      tax_amount: toEuro(tax),
      total_amount: toEuro(gross - discount + tax),
      treatment_plan_item_id: l.treatmentPlanItemId ?? null,
    };
  });
  const net = (l: PricedLine) => toCents(l.total_amount) - toCents(l.tax_amount);
  const exempt = sumCents(lines.filter((l) => Number(l.vat_rate) === 0).map(net));
  // Without lines the total is the amount owed: stamp duty only when sent.
  const stamp = input.stampDuty !== undefined ? toCents(input.stampDuty) : input.lines && exempt > STAMP_DUTY_THRESHOLD_CENTS ? STAMP_DUTY_CENTS : 0;
  return {
    lines,
    subtotal: sumCents(lines.map(net)),
    discount: sumCents(lines.map((l) => toCents(l.discount_amount))),
    tax: sumCents(lines.map((l) => toCents(l.tax_amount))),
    stamp,
  };
}

/** Quote and quote items named by an invoice must be the patient's. */
async function checkQuoteRefs(trx: Transaction, actor: Actor, input: NewInvoice, issues: ValidationIssue[]): Promise<void> {
  const refs = await checkRefs(trx, actor, [{ field: 'treatmentPlanId', table: 'treatment_plans', id: input.treatmentPlanId, patientId: input.patientId }]);
  issues.push(...refs.issues);
  for (const [n, line] of (input.lines ?? []).entries()) {
    if (!line.treatmentPlanItemId) continue;
    const itemPatient = await store.quoteItemPatient(trx, actor.clinicId, line.treatmentPlanItemId);
    if (itemPatient !== input.patientId.toLowerCase())
      issues.push({ path: `lines.${n}.treatmentPlanItemId`, message: 'non è una voce di un preventivo del paziente' });
  }
}

/** Issues an invoice (back office) and records `invoice.issued`. A number used in the clinic is `409 duplicate_number`. */
export async function issueInvoice(db: Db, actor: Actor, input: NewInvoice): Promise<InvoiceView> {
  const row = await db.transaction().execute(async (trx) => {
    const { issues, rows } = await checkRefs(trx, actor, [{ field: 'patientId', table: 'patients', id: input.patientId }]);
    await checkQuoteRefs(trx, actor, input, issues);
    issues.push(...invoiceBodyIssues(input));
    if (issues.length > 0) throw ApiError.invalid('body', issues);
    const priced = priceLines(input);
    const outcome = await store.insertInvoice(
      trx,
      {
        id: randomUUID(),
        clinic_id: actor.clinicId,
        facility_id: rows.get('patientId')?.facility_id ?? null,
        patient_id: input.patientId,
        treatment_plan_id: input.treatmentPlanId ?? null,
        number: input.number,
        subtotal_amount: toEuro(priced.subtotal),
        discount_amount: toEuro(priced.discount),
        tax_amount: toEuro(priced.tax),
        stamp_duty_amount: toEuro(priced.stamp),
        total_amount: toEuro(priced.subtotal + priced.tax + priced.stamp),
        due_date: input.dueDate ?? null,
        ...(input.issuedAt ? { issued_at: new Date(input.issuedAt) } : {}),
      },
      priced.lines,
    );
    if (outcome.kind === 'duplicate_number') throw ApiError.conflict('duplicate_number');
    const row = outcome.row;
    await recordEvent(trx, { log: actor.log, clinicId: actor.clinicId, type: 'invoice.issued', facilityId: row.facility_id, data: invoiceSummary(row) });
    return row;
  });
  return invoiceView(row, await store.invoiceLines(db, actor.clinicId, [row.id]));
}

/**
 * Voids an issued invoice that received no payment (Stripe's rule; a credit note is the way
 * out of a paid one). No event: the catalogue has none. Voiding a void invoice answers it unchanged.
 */
export async function voidInvoice(db: Db, actor: Actor, id: string): Promise<InvoiceView> {
  const row = await db.transaction().execute(async (trx) => {
    const current = await lockScoped(trx, 'invoices', actor, id);
    if (current.status === 'void') return current;
    if (current.status !== 'issued') throw ApiError.conflict('invalid_transition', { from: current.status, to: 'void' });
    if (toCents(current.amount_paid) > 0) throw ApiError.conflict('invoice_has_payments', { amountPaid: Number(current.amount_paid) });
    return store.voidInvoice(trx, id);
  });
  return invoiceView(row, await store.invoiceLines(db, actor.clinicId, [row.id]));
}

export async function findInvoice(db: Db, actor: Actor, id: string): Promise<InvoiceView> {
  const row = await findScoped(db, 'invoices', actor, id);
  return invoiceView(row, await store.invoiceLines(db, actor.clinicId, [row.id]));
}

export async function listInvoices(db: Db, actor: Actor, q: InvoiceListQuery): Promise<{ data: InvoiceView[]; nextCursor: string | null }> {
  const page = await store.listInvoices(db, actor, q);
  const lines = await store.invoiceLines(
    db,
    actor.clinicId,
    page.items.map((r) => r.id),
  );
  return {
    data: page.items.map((r) =>
      invoiceView(
        r,
        lines.filter((l) => l.invoice_id === r.id),
      ),
    ),
    nextCursor: page.nextCursor,
  };
}

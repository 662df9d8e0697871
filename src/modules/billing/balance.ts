/**
 * A patient's balance: "how much do I owe?" in one read. What is owed is the open
 * part of the issued invoices plus the unpaid part of the installments; overdue is the part
 * whose due date is past in the clinic's time zone (an invoice without a due date is never
 * overdue: only a due date makes a debt late).
 */
import type { Actor } from '../../core/actor.js';
import { findScoped } from '../../db/scoped.js';
import type { Db } from '../../db/transaction.js';
import { localDate } from './dates.js';
import { issuedInvoicesOf } from './invoice-store.js';
import { invoiceDueCents } from './invoices.js';
import { CURRENCY, sumCents, toCents, toEuro } from './money.js';
import { unpaidInstallmentsOf } from './plan-store.js';
import type { BalanceView } from './schema.js';

export async function patientBalance(db: Db, actor: Actor, patientId: string): Promise<BalanceView> {
  const patient = await findScoped(db, 'patients', actor, patientId);
  const today = localDate(actor.timeZone);
  const invoices = await issuedInvoicesOf(db, actor.clinicId, patient.id);
  const installments = await unpaidInstallmentsOf(db, actor.clinicId, patient.id);
  const open = [
    ...invoices.map((i) => ({ cents: invoiceDueCents(i), due: i.due_date })),
    ...installments.map((i) => ({ cents: toCents(i.amount) - toCents(i.amount_paid), due: i.due_date as string | null })),
  ];
  const next = installments.find((i) => i.due_date >= today);
  return {
    patientId: patient.id,
    currency: CURRENCY,
    amountDue: toEuro(sumCents(open.map((o) => o.cents))),
    overdueAmount: toEuro(sumCents(open.filter((o) => o.due !== null && o.due < today).map((o) => o.cents))),
    nextInstallment: next
      ? { id: next.id, paymentPlanId: next.payment_plan_id, dueDate: next.due_date, amount: toEuro(toCents(next.amount) - toCents(next.amount_paid)) }
      : null,
    openInvoiceCount: invoices.filter((i) => invoiceDueCents(i) > 0).length,
  };
}

/**
 * The demo clinic's billing: a demo patient with a presented quote, an issued invoice
 * partly paid by a card payment, so every billing operation answers something on a fresh start.
 */
import { SILENT_LOGGER } from '../core/actor.js';
import { backOfficeActor } from '../modules/clinics/index.js';
import type { Db } from '../db/transaction.js';
import { addDays, localDate, issueInvoice, recordPayment, createQuote, decideQuote } from '../modules/billing/index.js';

/** Nothing here pages or parses a phone number without a country code: no cursor secret, Italian numbers. */
const DEMO_ENV = { region: 'IT', cursorSecret: 'demo-billing-unused' };

export async function seedDemoBilling(
  db: Db,
  clinicId: string,
  /** One of the demo's patients (agenda.ts): the quote, invoice and payment are theirs. */
  patientId: string,
): Promise<{ patientId: string; quoteId: string; invoiceId: string; paymentId: string }> {
  const actor = await backOfficeActor(db, clinicId, DEMO_ENV, 'demo-seed', SILENT_LOGGER);
  const quote = await createQuote(db, actor, {
    patientId,
    title: 'Riabilitazione implantare 36',
    items: [
      { phase: 1, procedureCode: 'IGI-01', description: 'Igiene professionale', unitAmount: 80 },
      { phase: 2, procedureCode: 'IMP-01', description: 'Impianto osteointegrato in titanio', teeth: [36], unitAmount: 1200 },
      { phase: 3, procedureCode: 'PRO-03', description: 'Corona in zirconia su impianto', teeth: [36], surfaces: ['O'], unitAmount: 750, discount: 50 },
    ],
    discount: 30,
  });
  await decideQuote(db, actor, quote.id, { to: 'presented', validUntil: addDays(localDate(actor.timeZone), 60) });
  const invoice = await issueInvoice(db, actor, {
    patientId,
    number: `${localDate(actor.timeZone).slice(0, 4)}/0001`,
    dueDate: addDays(localDate(actor.timeZone), 30),
    lines: [{ description: 'Prima visita e radiografia panoramica', unitAmount: 120 }],
  });
  const payment = await recordPayment(db, actor, { amount: 50, method: 'card', reference: 'demo_pi_0001', invoiceId: invoice.id });
  return { patientId, quoteId: quote.id, invoiceId: invoice.id, paymentId: payment.view.id };
}

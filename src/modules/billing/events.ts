/**
 * The `data` of the billing events (spec 6.2, 6.3): a quote's amounts and decision without its
 * title, items or notes; an invoice without its lines (their descriptions are clinical text); a
 * payment as the REST API shows it; an overdue installment. Where `data` is the resource's own
 * REST shape the schema is reused, elsewhere its fields are picked, so a field keeps one
 * description and one type in the whole document; the examples are the billing examples.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { EventDataObject, EXAMPLE_IDS as ID } from '../../core/event-data.js';
import { Nullable, StringEnum, Uuid } from '../../core/schemas.js';
import type { AnyEventType } from '../../events/catalogue.js';
import {
  ACCEPTANCE_CHANNELS,
  INVOICE_EXAMPLE as BILLING_INVOICE_EXAMPLE,
  InvoiceSchema,
  PAYMENT_EXAMPLE,
  QUOTE_EXAMPLE as BILLING_QUOTE_EXAMPLE,
  PaymentSchema,
  QuoteSchema,
} from './schema.js';

// ---- Quotes (treatment plans): amounts and decision, without the title, items or notes ----

const quote = Type.Pick(QuoteSchema, [
  'id',
  'number',
  'patientId',
  'facilityId',
  'doctorId',
  'status',
  'currency',
  'subtotal',
  'discount',
  'totalAmount',
  'validUntil',
  'presentedAt',
  'decidedAt',
]).properties;
const quoteFields = {
  ...quote,
  acceptanceChannel: Nullable(StringEnum(ACCEPTANCE_CHANNELS, { description: 'Where the patient said yes; null unless accepted' })),
};
/** The quote of the billing examples (the same ids and amounts), as its event carries it. */
const QUOTE_EXAMPLE = {
  ...Object.fromEntries(Object.keys(quote).map((key) => [key, BILLING_QUOTE_EXAMPLE[key as keyof typeof BILLING_QUOTE_EXAMPLE]])),
  acceptanceChannel: null,
};
const quoteData = (example: Record<string, unknown>) =>
  EventDataObject(quoteFields, 'TreatmentPlanEventData', 'The quote’s amounts and decision, without its title, items or notes', {
    ...QUOTE_EXAMPLE,
    ...example,
  });

// ---- Invoices, payments, installments ----

/** The invoice of the billing examples (the same ids), as issued: nothing paid yet, no lines. */
const { lines: _lines, ...INVOICE } = BILLING_INVOICE_EXAMPLE;
const INVOICE_EXAMPLE = { ...INVOICE, amountPaid: 0, amountDue: INVOICE.totalAmount, updatedAt: INVOICE.createdAt };
const invoiceData = (example: Record<string, unknown>) =>
  Type.Omit(InvoiceSchema, ['lines'], {
    additionalProperties: false,
    title: 'InvoiceEventData',
    description: 'The invoice without its lines (their descriptions are clinical text)',
    examples: [{ ...INVOICE_EXAMPLE, ...example }],
  });
const PaymentReceived = Type.Object(PaymentSchema.properties, {
  additionalProperties: false,
  title: 'PaymentEventData',
  description: 'The payment, as `GET /payments/{id}` shows it',
  examples: [{ ...PAYMENT_EXAMPLE, amount: 1202, allocations: [{ invoiceId: ID.invoice, installmentId: null, amount: 1202 }] }],
});
const InstallmentOverdue = EventDataObject(
  {
    id: Uuid({ description: 'The installment' }),
    paymentPlanId: Uuid(),
    patientId: Uuid(),
    amount: Type.Number({ description: 'Euro' }),
    amountPaid: Type.Number({ description: 'Euro paid so far' }),
    dueDate: Type.String({ format: 'date', description: '`YYYY-MM-DD`, passed in the clinic’s time zone' }),
    status: StringEnum(['pending', 'partially_paid'] as const),
  },
  'InstallmentOverdueEventData',
  'The unpaid installment and its plan',
  { id: ID.installment, paymentPlanId: ID.paymentPlan, patientId: ID.patient, amount: 300, amountPaid: 0, dueDate: '2026-05-15', status: 'pending' },
);

/** The schema of `data` for each billing event type. */
export const BILLING_EVENTS = {
  'treatment_plan.presented': quoteData({}),
  'treatment_plan.accepted': quoteData({ status: 'accepted', decidedAt: '2026-03-06T15:20:00.000Z', acceptanceChannel: 'in_person' }),
  'treatment_plan.rejected': quoteData({ status: 'rejected', decidedAt: '2026-03-06T15:20:00.000Z' }),
  'invoice.issued': invoiceData({}),
  'invoice.paid': invoiceData({ status: 'paid', amountPaid: 1202, amountDue: 0, paidAt: '2026-04-02T08:15:00.000Z', updatedAt: '2026-04-02T08:15:00.000Z' }),
  'payment.received': PaymentReceived,
  'installment.overdue': InstallmentOverdue,
} satisfies { [T in AnyEventType]?: TSchema };

/** The `data` of a billing event of type T. */
export type EventData<T extends keyof typeof BILLING_EVENTS> = Static<(typeof BILLING_EVENTS)[T]>;

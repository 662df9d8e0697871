/** /v1/payments and /v1/patients/{id}/balance: payments received and what a patient owes. */
import {
  paymentBodyIssues,
  patientBalance,
  findPayment,
  listPayments,
  recordPayment,
  BILLING_REASONS,
  BalanceSchema,
  NewPaymentBody,
  PaymentSchema,
  PaymentListQuerySchema,
} from '../../../modules/billing/index.js';
import type { AppContext } from '../../../context.js';
import { IdempotencyHeaders, IdParams, Page } from '../../../core/schemas.js';
import type { App } from '../../types.js';

const TAG = 'Invoices and payments';

export function registerPaymentRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;

  app.get(
    '/v1/payments',
    {
      schema: {
        operationId: 'listPayments',
        tags: [TAG],
        summary: 'List payments',
        description:
          'Payments of the clinic and of the facilities the key sees. Order: by creation, oldest first, then by id (payments do not change: resume with `createdSince`). Filters: `patientId`, `facilityId`, `invoiceId` and `installmentId` (payments that paid some of it), `createdSince` (recorded at or after it). Amounts are euro (`currency` `EUR`).',
        querystring: PaymentListQuerySchema,
        response: { 200: Page(PaymentSchema) },
      },
      config: { scopes: ['billing:read'] },
    },
    async (request) => listPayments(db, request.actor, { ...request.query, limit: request.query.limit ?? 50 }),
  );

  app.get(
    '/v1/payments/:id',
    {
      schema: {
        operationId: 'getPayment',
        tags: [TAG],
        summary: 'Read a payment',
        description: 'One payment with what it paid (`allocations`).',
        params: IdParams,
        response: { 200: PaymentSchema },
      },
      config: { scopes: ['billing:read'] },
    },
    async (request) => findPayment(db, request.actor, request.params.id),
  );

  app.post(
    '/v1/payments',
    {
      schema: {
        operationId: 'recordPayment',
        tags: [TAG],
        summary: 'Record a payment received by a provider',
        description: [
          'Exactly one of `invoiceId` (that invoice), `installmentId` (that installment) or `patientId` (the patient’s oldest due amounts first: open invoices and unpaid installments by due date, an invoice without one by its issue date) says what it pays; sending none or two is `400` naming them. `amount` is euro, at most two decimals; `receivedAt` defaults to now.',
          'Idempotent on `reference` (the provider’s id of the payment) within the clinic: `201` the first time, then `200` with the same payment, unchanged, also for retries sent at the same moment (a unique index decides). The same `reference` with another amount, method, target or `receivedAt` is `409 conflict`, reason `reference_reused`, with `details.paymentId`. `Idempotency-Key` is honoured too.',
          'More than what is open (checked with the rows locked, so two payments at once cannot together exceed it) is `409 conflict`, reason `exceeds_balance`, with `details.balance`. A void invoice has nothing open.',
          'Effects, in one transaction: invoices covered become `paid` (`invoice.paid`), installments covered become `paid` (no longer `overdue`; `partially_paid` before) and their plans change (`updatedSince`), and `payment.received` is recorded. A refused payment writes nothing and records no event.',
        ].join('\n\n'),
        headers: IdempotencyHeaders,
        body: NewPaymentBody,
        response: { 200: PaymentSchema, 201: PaymentSchema },
      },
      config: { scopes: ['billing:write'], idempotent: true, reasons: BILLING_REASONS.recordPayment, bodyIssues: paymentBodyIssues },
    },
    async (request, reply) => {
      const { view, created } = await recordPayment(request.db, request.actor, request.body);
      return reply.status(created ? 201 : 200).send(view);
    },
  );

  app.get(
    '/v1/patients/:id/balance',
    {
      schema: {
        operationId: 'getPatientBalance',
        tags: [TAG],
        summary: 'What a patient owes',
        description:
          'For “how much do I owe?” in one call: `amountDue` = the open part of issued invoices plus the unpaid part of installments; `overdueAmount` = the part of it past its due date (clinic time zone; an invoice without a due date is never overdue); `nextInstallment` = the earliest unpaid installment due today or later (overdue ones are in `overdueAmount`), or null; `openInvoiceCount` = issued invoices with something to pay. A clinic that invoices an amount and also schedules it as installments sees it twice: invoice installments when they are paid (the Italian practice of invoicing at payment) to avoid it.',
        params: IdParams,
        response: { 200: BalanceSchema },
      },
      config: { scopes: ['billing:read'] },
    },
    async (request) => patientBalance(db, request.actor, request.params.id),
  );
}

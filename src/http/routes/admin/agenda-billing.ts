/** Back office: quotes (treatment plans), payment plans, invoices (issue and void), payments. */
import type { AppContext } from '../../../context.js';
import { ClinicParams, ClinicItemParams } from '../../../core/schemas.js';
import {
  invoiceBodyIssues,
  paymentBodyIssues,
  paymentPlanBodyIssues,
  quoteBodyIssues,
  issueInvoice,
  voidInvoice,
  recordPayment,
  createPaymentPlan,
  createQuote,
  decideQuote,
  BILLING_REASONS,
  InvoiceSchema,
  NewInvoiceBody,
  NewQuoteBody,
  PaymentPlanSchema,
  PaymentSchema,
  QuoteSchema,
  AdminPaymentBody,
  NewPaymentPlanBody,
  QuoteStatusChangeBody,
} from '../../../modules/billing/index.js';
import type { App } from '../../types.js';

const TAG = 'Agenda (back office)';

export function registerBillingAdminRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;

  app.post(
    '/admin/v1/clinics/:clinicId/treatment-plans',
    {
      config: { clinicActor: true, bodyIssues: quoteBodyIssues },
      schema: {
        operationId: 'adminCreateTreatmentPlan',
        tags: [TAG],
        summary: 'Create a quote (treatment plan) in draft',
        description: 'The same rules as createTreatmentPlan on /v1 (a draft with items, numbered `P-<year>-<seq>`).',
        params: ClinicParams,
        body: NewQuoteBody,
        response: { 201: QuoteSchema },
      },
    },
    async (request, reply) => reply.status(201).send(await createQuote(db, request.actor, request.body)),
  );

  app.post(
    '/admin/v1/clinics/:clinicId/treatment-plans/:id/status',
    {
      config: { clinicActor: true, reasons: BILLING_REASONS.setTreatmentPlanStatus, bodyIssues: false },
      schema: {
        operationId: 'adminSetTreatmentPlanStatus',
        tags: [TAG],
        summary: 'Present, accept, reject or cancel a quote',
        description:
          'The decisions of /v1 in one operation for the desk: draft → presented (`treatment_plan.presented`, `validUntil` default 90 days); presented → accepted (`treatment_plan.accepted`, `channel` default `in_person`) or rejected (`treatment_plan.rejected`, `reason` default `other`); draft or presented → cancelled (no event). Any other move is `409 conflict`, reason `invalid_transition`.',
        params: ClinicItemParams,
        body: QuoteStatusChangeBody,
        response: { 200: QuoteSchema },
      },
    },
    async (request) => {
      const b = request.body;
      const decision =
        b.status === 'presented'
          ? { to: b.status, validUntil: b.validUntil }
          : b.status === 'accepted'
            ? { to: b.status, acceptance: { channel: b.channel ?? 'in_person', signedDocumentId: b.signedDocumentId } }
            : b.status === 'rejected'
              ? { to: b.status, rejection: { reason: b.reason ?? 'other', note: b.note } }
              : { to: b.status };
      return decideQuote(db, request.actor, request.params.id, decision);
    },
  );

  app.post(
    '/admin/v1/clinics/:clinicId/payment-plans',
    {
      config: { clinicActor: true, bodyIssues: paymentPlanBodyIssues },
      schema: {
        operationId: 'adminCreatePaymentPlan',
        tags: [TAG],
        summary: 'Create a payment plan with its installments',
        description: 'The total is the sum of the installments; installments are numbered in the order sent.',
        params: ClinicParams,
        body: NewPaymentPlanBody,
        response: { 201: PaymentPlanSchema },
      },
    },
    async (request, reply) => reply.status(201).send(await createPaymentPlan(db, request.actor, request.body)),
  );

  app.post(
    '/admin/v1/clinics/:clinicId/invoices',
    {
      config: { clinicActor: true, reasons: BILLING_REASONS.issueInvoice, bodyIssues: invoiceBodyIssues },
      schema: {
        operationId: 'adminIssueInvoice',
        tags: [TAG],
        summary: 'Issue an invoice',
        description: [
          'Records `invoice.issued`. The number is the clinic’s fiscal number: one already used in the clinic is `409 conflict`, reason `duplicate_number`.',
          'With `lines`: each line is quantity × unitAmount − discount, plus VAT at `vatRate` percent (rounded to the cent per line; 0, the default, for exempt health care). `stampDuty` defaults to 2.00 when the exempt lines exceed 77.47 (the Italian marca da bollo), else 0. With `totalAmount` instead: one exempt line of that amount and no stamp duty unless sent.',
          '`treatmentPlanId` and each line’s `treatmentPlanItemId` must be the patient’s.',
        ].join('\n\n'),
        params: ClinicParams,
        body: NewInvoiceBody,
        response: { 201: InvoiceSchema },
      },
    },
    async (request, reply) => reply.status(201).send(await issueInvoice(db, request.actor, request.body)),
  );

  app.post(
    '/admin/v1/clinics/:clinicId/invoices/:id/void',
    {
      config: { clinicActor: true, reasons: BILLING_REASONS.voidInvoice },
      schema: {
        operationId: 'adminVoidInvoice',
        tags: [TAG],
        summary: 'Void an invoice',
        description:
          'Only an issued invoice with nothing paid: one with payments is `409 conflict`, reason `invoice_has_payments` (issue a credit note instead); a paid one is `invalid_transition`. Voiding a void invoice answers it unchanged. No event.',
        params: ClinicItemParams,
        response: { 200: InvoiceSchema },
      },
    },
    async (request) => voidInvoice(db, request.actor, request.params.id),
  );

  app.post(
    '/admin/v1/clinics/:clinicId/payments',
    {
      config: { clinicActor: true, reasons: BILLING_REASONS.recordPayment, bodyIssues: paymentBodyIssues },
      schema: {
        operationId: 'adminRecordPayment',
        tags: [TAG],
        summary: 'Record a payment',
        description:
          'The rules of recordPayment on /v1; `reference` is optional here (a payment at the desk may have none; with one, it is idempotent as on /v1: `200` with the stored payment on a repeat).',
        params: ClinicParams,
        body: AdminPaymentBody,
        response: { 200: PaymentSchema, 201: PaymentSchema },
      },
    },
    async (request, reply) => {
      const { view, created } = await recordPayment(db, request.actor, request.body);
      return reply.status(created ? 201 : 200).send(view);
    },
  );
}

/** Back office: treatment plans, payment plans, invoices, payments. */
import { clinicActor } from './actor.js';
import { Type } from 'typebox';
import { BILLING_REASONS } from '../../../modules/billing/reasons.js';
import type { AppContext } from '../../../context.js';
import {
  createPaymentPlan,
  createTreatmentPlan,
  invoiceView,
  issueInvoice,
  PAYMENT_METHODS,
  recordPayment,
  setTreatmentPlanStatus,
  treatmentPlanView,
} from '../../../modules/billing/service.js';
import { DateOnly, InputTimestamp, Nullable, OutputTimestamp, StringEnum, Uuid } from '../../../core/schemas.js';
import type { App } from '../../types.js';
import { InstallmentSchema, PaymentPlanSchema } from '../v1/payment-plans.js';

const TAG = 'Agenda (back office)';
const ClinicParams = Type.Object({ clinicId: Uuid() }, { additionalProperties: false });
const ItemParams = Type.Object({ clinicId: Uuid(), id: Uuid() }, { additionalProperties: false });
const Amount = (description = 'Euro, at most two decimals') => Type.Number({ exclusiveMinimum: 0, maximum: 100000000, description });

const TreatmentPlan = Type.Object(
  {
    id: Uuid(),
    patientId: Uuid(),
    facilityId: Nullable(Uuid()),
    title: Nullable(Type.String()),
    totalAmount: Type.Number(),
    status: StringEnum(['draft', 'presented', 'accepted', 'rejected'] as const),
    presentedAt: Nullable(OutputTimestamp()),
    decidedAt: Nullable(OutputTimestamp()),
    createdAt: OutputTimestamp(),
    updatedAt: OutputTimestamp(),
  },
  { additionalProperties: false },
);

const Invoice = Type.Object(
  {
    id: Uuid(),
    patientId: Uuid(),
    facilityId: Nullable(Uuid()),
    number: Type.String(),
    totalAmount: Type.Number(),
    amountPaid: Type.Number(),
    status: StringEnum(['issued', 'paid'] as const),
    issuedAt: OutputTimestamp(),
    paidAt: Nullable(OutputTimestamp()),
  },
  { additionalProperties: false },
);

export function registerBillingAdminRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;

  app.post(
    '/admin/v1/clinics/:clinicId/treatment-plans',
    {
      schema: {
        operationId: 'adminCreateTreatmentPlan',
        tags: [TAG],
        summary: 'Create a treatment plan (quote)',
        description: 'Status `draft` (default) or `presented` (records `treatment_plan.presented`).',
        params: ClinicParams,
        body: Type.Object(
          {
            patientId: Uuid(),
            title: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
            totalAmount: Amount(),
            status: Type.Optional(StringEnum(['draft', 'presented'] as const)),
          },
          { additionalProperties: false },
        ),
        response: { 201: TreatmentPlan },
      },
    },
    async (request, reply) =>
      reply.status(201).send(treatmentPlanView(await createTreatmentPlan(db, await clinicActor(ctx, request, request.params.clinicId), request.body))),
  );

  app.post(
    '/admin/v1/clinics/:clinicId/treatment-plans/:id/status',
    {
      config: { reasons: BILLING_REASONS.setTreatmentPlanStatus },
      schema: {
        operationId: 'adminSetTreatmentPlanStatus',
        tags: [TAG],
        summary: 'Present, accept or reject a treatment plan',
        description:
          'Transitions: draft → presented (`treatment_plan.presented`); presented → accepted (`treatment_plan.accepted`) or rejected (`treatment_plan.rejected`). Any other is `409 conflict`, reason `invalid_transition`.',
        params: ItemParams,
        body: Type.Object({ status: StringEnum(['presented', 'accepted', 'rejected'] as const) }, { additionalProperties: false }),
        response: { 200: TreatmentPlan },
      },
    },
    async (request) =>
      treatmentPlanView(await setTreatmentPlanStatus(db, await clinicActor(ctx, request, request.params.clinicId), request.params.id, request.body.status)),
  );

  app.post(
    '/admin/v1/clinics/:clinicId/payment-plans',
    {
      schema: {
        operationId: 'adminCreatePaymentPlan',
        tags: [TAG],
        summary: 'Create a payment plan with its installments',
        description: 'The total is the sum of the installments; installments are numbered in the order sent.',
        params: ClinicParams,
        body: Type.Object(
          {
            patientId: Uuid(),
            treatmentPlanId: Type.Optional(Nullable(Uuid())),
            type: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
            installments: Type.Array(Type.Object({ amount: Amount(), dueDate: DateOnly() }, { additionalProperties: false }), { minItems: 1, maxItems: 120 }),
          },
          { additionalProperties: false },
        ),
        response: { 201: PaymentPlanSchema },
      },
    },
    async (request, reply) => reply.status(201).send(await createPaymentPlan(db, await clinicActor(ctx, request, request.params.clinicId), request.body)),
  );

  app.post(
    '/admin/v1/clinics/:clinicId/invoices',
    {
      config: { reasons: BILLING_REASONS.issueInvoice },
      schema: {
        operationId: 'adminIssueInvoice',
        tags: [TAG],
        summary: 'Issue an invoice',
        description: 'Records `invoice.issued`. A number already used in the clinic is `409 conflict`, reason `duplicate_number`.',
        params: ClinicParams,
        body: Type.Object(
          { patientId: Uuid(), number: Type.String({ minLength: 1, maxLength: 50 }), totalAmount: Amount(), issuedAt: Type.Optional(InputTimestamp()) },
          { additionalProperties: false },
        ),
        response: { 201: Invoice },
      },
    },
    async (request, reply) =>
      reply.status(201).send(invoiceView(await issueInvoice(db, await clinicActor(ctx, request, request.params.clinicId), request.body))),
  );

  app.post(
    '/admin/v1/clinics/:clinicId/payments',
    {
      config: { reasons: BILLING_REASONS.recordPayment },
      schema: {
        operationId: 'adminRecordPayment',
        tags: [TAG],
        summary: 'Record a payment',
        description:
          'Toward an installment (`installmentId`), an invoice (`invoiceId`) or both. Records `payment.received`; raises `amountPaid`; an installment covered in full becomes `paid` with `paidAt` and `paymentMethod`; an invoice covered in full becomes `paid` and records `invoice.paid`. More than the open balance is `409 conflict`, reason `exceeds_balance`.',
        params: ClinicParams,
        body: Type.Object(
          {
            amount: Amount(),
            method: StringEnum(PAYMENT_METHODS),
            installmentId: Type.Optional(Uuid()),
            invoiceId: Type.Optional(Uuid()),
            receivedAt: Type.Optional(InputTimestamp()),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object(
            {
              payment: Type.Object(
                {
                  id: Uuid(),
                  patientId: Uuid(),
                  invoiceId: Nullable(Uuid()),
                  installmentId: Nullable(Uuid()),
                  amount: Type.Number(),
                  method: Type.String(),
                  receivedAt: OutputTimestamp(),
                },
                { additionalProperties: false },
              ),
              installment: Nullable(InstallmentSchema),
              invoice: Nullable(Invoice),
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request, reply) => reply.status(201).send(await recordPayment(db, await clinicActor(ctx, request, request.params.clinicId), request.body)),
  );
}

/** /v1/payment-plans (spec 2.10, 4.8). */
import { Type } from 'typebox';
import type { AppContext } from '../../../context.js';
import { listPaymentPlans } from '../../../modules/billing/service.js';
import { Cursor, InputTimestamp, Limit, Nullable, OutputTimestamp, Page, StringEnum, Uuid } from '../../../core/schemas.js';
import type { App } from '../../types.js';

export const InstallmentSchema = Type.Object(
  {
    id: Uuid(),
    amount: Type.Number({ description: 'Euro' }),
    amountPaid: Type.Number(),
    dueDate: Type.String({ format: 'date', description: '`YYYY-MM-DD`' }),
    status: Type.String({ description: '`pending`, `partially_paid` or `paid`' }),
    paidAt: Nullable(OutputTimestamp({ description: 'When it was paid in full' })),
    paymentMethod: Nullable(Type.String({ description: 'Method of the last payment: `cash`, `card`, `bank_transfer`, `financing` or `other`' })),
    overdue: Type.Boolean({ description: 'Unpaid and its due date has passed (clinic timezone)' }),
  },
  { additionalProperties: false, title: 'Installment' },
);

export const PaymentPlanSchema = Type.Object(
  {
    id: Uuid(),
    patientId: Uuid(),
    treatmentPlanId: Nullable(Uuid()),
    type: Type.String({ description: '`installments` (default), `prepaid`, or a type of the app' }),
    totalAmount: Type.Number({ description: 'Euro: the sum of the installments' }),
    installmentCount: Type.Integer(),
    createdAt: OutputTimestamp(),
    installments: Type.Array(InstallmentSchema, { description: 'By due date, then in the order of the plan' }),
  },
  { additionalProperties: false, title: 'PaymentPlan' },
);

export function registerPaymentPlanRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/payment-plans',
    {
      schema: {
        operationId: 'listPaymentPlans',
        tags: ['Invoices and payments'],
        summary: 'List payment plans with their installments',
        description: [
          '`state`: `open` (default) = plans with an unpaid installment; `overdue` = plans with an unpaid installment past its due date; `all` = every plan. `patientId` keeps one patient’s plans; `updatedSince` the plans changed at or after it (a payment, or an installment becoming overdue, changes its plan).',
          'Order: by last modification, oldest first, then by id. Each installment carries `overdue` (unpaid and due before today in the clinic’s timezone). Amounts are in euro.',
        ].join('\n\n'),
        querystring: Type.Object(
          {
            limit: Type.Optional(Limit(200, 50)),
            cursor: Type.Optional(Cursor()),
            updatedSince: Type.Optional(InputTimestamp()),
            patientId: Type.Optional(Uuid()),
            state: Type.Optional(StringEnum(['open', 'overdue', 'all'] as const, { default: 'open' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Page(PaymentPlanSchema) },
      },
      config: { scopes: ['billing:read'] },
    },
    async (request) => listPaymentPlans(ctx.db, request.actor, { ...request.query, limit: request.query.limit ?? 50, state: request.query.state ?? 'open' }),
  );
}

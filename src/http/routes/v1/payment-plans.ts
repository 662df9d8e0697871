/** /v1/payment-plans (spec 2.10, 4.8). */
import type { AppContext } from '../../../context.js';
import { listPaymentPlans, PaymentPlanSchema, PaymentPlanListQuerySchema } from '../../../modules/billing/index.js';
import { Page } from '../../../core/schemas.js';
import type { App } from '../../types.js';

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
        querystring: PaymentPlanListQuerySchema,
        response: { 200: Page(PaymentPlanSchema) },
      },
      config: { scopes: ['billing:read'] },
    },
    async (request) => listPaymentPlans(ctx.db, request.actor, { ...request.query, limit: request.query.limit ?? 50, state: request.query.state ?? 'open' }),
  );
}

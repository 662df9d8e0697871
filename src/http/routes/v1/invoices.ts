/** /v1/invoices: read-only; issuing and voiding stay in the back office (fiscal numbering is the clinic's). */
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.js';
import { IdParams, Page } from '../../../core/schemas.js';
import { findInvoice, listInvoices, InvoiceSchema, type InvoiceView, InvoiceListQuerySchema } from '../../../modules/billing/index.js';
import type { App } from '../../types.js';

const TAG = 'Invoices and payments';

const RULES = [
  'Amounts are euro (`currency` always `EUR`), computed in integer cents: a line is quantity × unitAmount − discount plus its VAT (`vatRate` percent, rounded to the cent per line; 0 for exempt health care); `subtotal` sums the lines before VAT (after their discounts, which `discount` totals), `tax` their VAT; `totalAmount` = subtotal + tax + `stampDuty` (the Italian marca da bollo: 2.00 on exempt amounts above 77.47); `amountDue` = totalAmount − amountPaid, 0 once `void`.',
  'Statuses: `issued` → `paid` (when payments cover it; event `invoice.paid`) or `void` (back office, only with nothing paid). Issuing and voiding are the clinic’s (its fiscal numbering): the back office does them.',
  'Access log: the line descriptions describe treatments; every response holding lines is logged.',
].join('\n\n');

export function registerInvoiceRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;

  /** A response holding invoice lines is a read of them: logged before it is sent. */
  const logged = async (request: FastifyRequest, views: InvoiceView[]) => {
    const withLines = views.filter((v) => v.lines.length > 0);
    if (withLines.length > 0)
      await ctx.accessLog.record(request.actor, {
        resourceType: 'invoice',
        resourceIds: withLines.map((v) => v.id),
        fields: ['lines.description'],
        requestId: request.id,
      });
  };

  app.get(
    '/v1/invoices',
    {
      schema: {
        operationId: 'listInvoices',
        tags: [TAG],
        summary: 'List invoices',
        description: [
          'Invoices of the clinic and of the facilities the key sees, with their lines. Order: by last modification, oldest first, then by id (a payment changes its invoice: resume with `updatedSince`). Filters: `patientId`, `status`, `facilityId`, `issuedFrom` (inclusive) and `issuedTo` (exclusive) on the issue time, `updatedSince`.',
          RULES,
        ].join('\n\n'),
        querystring: InvoiceListQuerySchema,
        response: { 200: Page(InvoiceSchema) },
      },
      config: { scopes: ['billing:read'] },
    },
    async (request) => {
      const page = await listInvoices(db, request.actor, { ...request.query, limit: request.query.limit ?? 50 });
      await logged(request, page.data);
      return page;
    },
  );

  app.get(
    '/v1/invoices/:id',
    {
      schema: {
        operationId: 'getInvoice',
        tags: [TAG],
        summary: 'Read an invoice',
        description: ['One invoice with its lines.', RULES].join('\n\n'),
        params: IdParams,
        response: { 200: InvoiceSchema },
      },
      config: { scopes: ['billing:read'] },
    },
    async (request) => {
      const view = await findInvoice(db, request.actor, request.params.id);
      await logged(request, [view]);
      return view;
    },
  );
}

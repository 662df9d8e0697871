/** /v1/treatment-plans: quotes, presented to a patient who accepts or rejects them. */
import { refuseBody } from '../../validation.js';
import {
  quoteBodyIssues,
  createQuote,
  decideQuote,
  findQuote,
  listQuotes,
  quoteLoggedFields,
  updateQuote,
  BILLING_REASONS,
  AcceptQuoteBody,
  NewQuoteBody,
  PresentQuoteBody,
  QuoteChangesBody,
  QuoteSchema,
  RejectQuoteBody,
  type QuoteView,
  QuoteListQuerySchema,
} from '../../../modules/billing/index.js';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.js';
import { IdempotencyHeaders, IdParams, IfMatchHeaders, Page } from '../../../core/schemas.js';
import { expectedVersion, setEtag } from '../../etag.js';
import type { App } from '../../types.js';

const TAG = 'Quotes (treatment plans)';

const RULES = [
  'States: `draft` → `presented` → `accepted` or `rejected`; `draft` or `presented` → `cancelled` (withdrawn or replaced; no event). Any other move is `409 conflict`, reason `invalid_transition`. A decision repeated on a quote already in that state answers it unchanged and records nothing, so a bot can retry safely.',
  'Amounts are euro with at most two decimals, computed in integer cents: item total = quantity × unitAmount − discount; `subtotal` = sum of the item totals; `totalAmount` = subtotal − `discount` (the discount on the whole quote). `currency` is always `EUR`.',
  'Access log: `title`, item descriptions, `notes` and the rejection note are clinical text: every response holding them is logged. `notes` is present only for a key with `clinical:read`.',
].join('\n\n');

export function registerTreatmentPlanRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;

  /** A response holding quotes is a read of their clinical text: logged before it is sent. */
  const logged = async <T extends QuoteView | QuoteView[]>(request: FastifyRequest, views: T): Promise<T> => {
    const list: QuoteView[] = Array.isArray(views) ? views : [views as QuoteView];
    const fields = quoteLoggedFields(list);
    if (fields.length > 0) await ctx.accessLog.record(request.actor, { resourceType: 'treatment_plan', resourceIds: list.map((v) => v.id), fields });
    return views;
  };

  app.get(
    '/v1/treatment-plans',
    {
      schema: {
        operationId: 'listTreatmentPlans',
        tags: [TAG],
        summary: 'List quotes',
        description: [
          'Quotes of the clinic and of the facilities the key sees, with their items. Order: by last modification, oldest first, then by id (resume with `updatedSince`). Filters: `patientId`, `status`, `facilityId`, `updatedSince` (modified at or after it).',
          RULES,
        ].join('\n\n'),
        querystring: QuoteListQuerySchema,
        response: { 200: Page(QuoteSchema) },
      },
      config: { scopes: ['treatment_plans:read'] },
    },
    async (request) => {
      const page = await listQuotes(db, request.actor, { ...request.query, limit: request.query.limit ?? 50 });
      await logged(request, page.data);
      return page;
    },
  );

  app.get(
    '/v1/treatment-plans/:id',
    {
      schema: {
        operationId: 'getTreatmentPlan',
        tags: [TAG],
        summary: 'Read a quote',
        description: [
          'One quote with its items and an `ETag` (for `If-Match` on updateTreatmentPlan). `expired` is true for a draft or presented quote whose `validUntil` is past in the clinic’s time zone.',
          RULES,
        ].join('\n\n'),
        params: IdParams,
        response: { 200: QuoteSchema },
      },
      config: { etag: true, scopes: ['treatment_plans:read'] },
    },
    async (request, reply) => {
      const { view, version } = await findQuote(db, request.actor, request.params.id);
      setEtag(reply, version);
      return logged(request, view);
    },
  );

  app.post(
    '/v1/treatment-plans',
    {
      schema: {
        operationId: 'createTreatmentPlan',
        tags: [TAG],
        summary: 'Create a quote (draft)',
        description: [
          'A draft with at least one item, for a patient; its facility is the patient’s. It gets a number `P-<year>-<seq>` counted per clinic and year. `doctorId` is an active doctor; an item’s `appointmentId` an appointment the key sees; `teeth` are FDI numbers (11-18, 21-28, 31-38, 41-48; deciduous 51-55 … 81-85); `surfaces` M, O, D, B, L, I, F, P. `notes` needs `clinical:write`. A discount above what it discounts is `400` naming it. No event: a draft is not yet presented.',
          RULES,
        ].join('\n\n'),
        headers: IdempotencyHeaders,
        body: NewQuoteBody,
        response: { 201: QuoteSchema },
      },
      config: { scopes: ['treatment_plans:write'], idempotent: true, bodyIssues: quoteBodyIssues },
    },
    async (request, reply) => reply.status(201).send(await logged(request, await createQuote(request.db, request.actor, request.body))),
  );

  app.patch(
    '/v1/treatment-plans/:id',
    {
      schema: {
        operationId: 'updateTreatmentPlan',
        tags: [TAG],
        summary: 'Change a draft quote',
        description: [
          'Only a draft changes (otherwise `409 conflict`, reason `invalid_transition`); only the fields sent change, `items` replaces the whole list and the amounts are recomputed. `If-Match` with an old `ETag` is `409 conflict`, reason `version_mismatch`.',
          RULES,
        ].join('\n\n'),
        params: IdParams,
        headers: IfMatchHeaders,
        body: QuoteChangesBody,
        response: { 200: QuoteSchema },
      },
      config: { etag: true, scopes: ['treatment_plans:write'], reasons: BILLING_REASONS.updateTreatmentPlan, bodyIssues: quoteBodyIssues },
    },
    async (request, reply) => {
      const { view, version } = await updateQuote(db, request.actor, request.params.id, request.body, expectedVersion(request));
      setEtag(reply, version);
      return logged(request, view);
    },
  );

  app.post(
    '/v1/treatment-plans/:id/present',
    {
      schema: {
        operationId: 'presentTreatmentPlan',
        tags: [TAG],
        summary: 'Present a quote to the patient',
        description: [
          'draft → presented; records `treatment_plan.presented`. `validUntil` (a date not past) sets the validity; without it the one already set is kept, or it becomes 90 days after today (clinic time zone).',
          RULES,
        ].join('\n\n'),
        params: IdParams,
        body: PresentQuoteBody,
        response: { 200: QuoteSchema },
      },
      config: { scopes: ['treatment_plans:write'], reasons: BILLING_REASONS.presentTreatmentPlan, bodyIssues: false },
      // The body is optional: none is the same as `{}`.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => logged(request, await decideQuote(db, request.actor, request.params.id, { to: 'presented', validUntil: request.body.validUntil })),
  );

  app.post(
    '/v1/treatment-plans/:id/accept',
    {
      schema: {
        operationId: 'acceptTreatmentPlan',
        tags: [TAG],
        summary: 'Record that the patient accepts a quote',
        description: [
          'presented → accepted; records `treatment_plan.accepted` with the `channel` (chat, voice, portal, in_person, email). A quote past its `validUntil` is `409 conflict`, reason `quote_expired`. When the clinic requires a signed document (back office: `quotesRequireSignature`), accepting without `signedDocumentId` is `403 forbidden`, reason `signature_required`; the id names a document of the Documents area and is stored as given.',
          RULES,
        ].join('\n\n'),
        params: IdParams,
        body: AcceptQuoteBody,
        response: { 200: QuoteSchema },
      },
      config: { scopes: ['treatment_plans:write'], reasons: BILLING_REASONS.acceptTreatmentPlan, bodyIssues: false },
    },
    async (request) => logged(request, await decideQuote(db, request.actor, request.params.id, { to: 'accepted', acceptance: request.body })),
  );

  app.post(
    '/v1/treatment-plans/:id/reject',
    {
      schema: {
        operationId: 'rejectTreatmentPlan',
        tags: [TAG],
        summary: 'Record that the patient rejects a quote',
        description: [
          'presented → rejected; records `treatment_plan.rejected`. `reason`: price, timing, second_opinion, not_needed or other; `note` is free text.',
          RULES,
        ].join('\n\n'),
        params: IdParams,
        body: RejectQuoteBody,
        response: { 200: QuoteSchema },
      },
      config: { scopes: ['treatment_plans:write'], reasons: BILLING_REASONS.rejectTreatmentPlan, bodyIssues: false },
    },
    async (request) => logged(request, await decideQuote(db, request.actor, request.params.id, { to: 'rejected', rejection: request.body })),
  );

  app.post(
    '/v1/treatment-plans/:id/cancel',
    {
      schema: {
        operationId: 'cancelTreatmentPlan',
        tags: [TAG],
        summary: 'Cancel a quote',
        description: [
          'draft or presented → cancelled (withdrawn, or replaced by another quote). No event. No body: nothing or `{}`; a body with fields is `400 invalid_request` naming each.',
          RULES,
        ].join('\n\n'),
        params: IdParams,
        response: { 200: QuoteSchema },
      },
      config: { scopes: ['treatment_plans:write'], reasons: BILLING_REASONS.cancelTreatmentPlan },
      preValidation: refuseBody,
    },
    async (request) => logged(request, await decideQuote(db, request.actor, request.params.id, { to: 'cancelled' })),
  );
}

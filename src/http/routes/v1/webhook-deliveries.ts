/** /v1/webhook-deliveries (spec 2.12.1, 3.2, 4.10). */
import {
  WEBHOOK_REASONS,
  getDelivery,
  listDeliveries,
  redeliver,
  DeliveryDetailSchema,
  DeliverySchema,
  DeliveryListQuerySchema,
} from '../../../modules/webhooks/index.js';
import type { AppContext } from '../../../context.js';
import { IdempotencyHeaders, IdParams, Page } from '../../../core/schemas.js';
import type { App } from '../../types.js';

export function registerWebhookDeliveryRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/webhook-deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        tags: ['Webhooks and events'],
        summary: 'List webhook deliveries',
        description:
          'Deliveries and their status, newest first (by `createdAt`, then `id`, descending), unlike `GET /events` (oldest first) on purpose: this list is for watching destinations, where the latest failures matter first; the events are a feed read in order and resumed. Filters `endpointId` and `status`. ' +
          'Deliveries of a deleted destination stay listed for 30 days; finished deliveries are purged after 30 days. ' +
          'A key sees the deliveries of the destinations it sees (see GET /webhook-endpoints).',
        querystring: DeliveryListQuerySchema,
        response: { 200: Page(DeliverySchema) },
      },
      config: { scopes: ['webhooks:read'] },
    },
    async (request) => ctx.reads.run(request.actor, (db) => listDeliveries(db, request.actor, { ...request.query, limit: request.query.limit ?? 50 })),
  );

  app.get(
    '/v1/webhook-deliveries/:id',
    {
      schema: {
        operationId: 'getWebhookDelivery',
        tags: ['Webhooks and events'],
        summary: 'Read a delivery with all its attempts',
        description: 'One delivery and every attempt (status code or kind of network error, and duration; never the receiver’s body).',
        params: IdParams,
        response: { 200: DeliveryDetailSchema },
      },
      config: { scopes: ['webhooks:read'] },
    },
    async (request) => getDelivery(ctx.db, request.actor, request.params.id),
  );

  app.post(
    '/v1/webhook-deliveries/:id/redeliver',
    {
      schema: {
        operationId: 'redeliverWebhookDelivery',
        tags: ['Webhooks and events'],
        summary: 'Send a finished delivery again',
        description:
          'Sends a `succeeded` or `discarded` delivery once more with the same body and the same `X-Service-Idempotency-Key` (new timestamp and signature). ' +
          'Answers `202` with the delivery, back in `pending`: one attempt, no retries; it ends `succeeded` or `discarded`. A failed redelivery does not count towards switching the destination off. ' +
          '`409 conflict` reasons: `redeliver_limit` (3 redeliveries already done), `delivery_not_finished` (pending or delivering), `endpoint_deleted`, `endpoint_disabled`. ' +
          'A test clinic’s delivery is counted but nothing is sent. The body is optional and has no fields.',
        params: IdParams,
        headers: IdempotencyHeaders,
        response: { 202: DeliveryDetailSchema },
      },
      config: { reasons: WEBHOOK_REASONS.redeliver, scopes: ['webhooks:write'], idempotent: true, errorStatuses: [409] },
    },
    async (request, reply) => reply.status(202).send(await redeliver(request.db, request.actor, request.params.id)),
  );
}

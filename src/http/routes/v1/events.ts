/** /v1/events (spec 4.10, 6.2). */
import type { AppContext } from '../../../context.js';
import { listEvents, EventEnvelopeSchema, EventListQuerySchema } from '../../../modules/webhooks/index.js';
import { Page } from '../../../core/schemas.js';
import type { App } from '../../types.js';

export function registerEventRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/events',
    {
      schema: {
        operationId: 'listEvents',
        tags: ['Webhooks and events'],
        summary: 'List the events of the last 30 days',
        description:
          'Events in the envelope of the webhooks, `id` being the event id. Oldest first (by `createdAt`, then `id`), unlike `GET /webhook-deliveries` (newest first) on purpose: the events are a feed read in order and resumed where it stopped, the deliveries a view for watching destinations; events never change, so `updatedSince` keeps those created from that instant on. ' +
          'Only the events the key can see: those whose scope it holds (for `events.skipped`, the scope of `data.type`) and, for a key limited to facilities, those of its facilities ' +
          '(events without a facility are seen only by keys not limited to facilities, except `events.skipped`, which every key with the scope sees). ' +
          'Filter `type`: one event type. Events older than 30 days are purged.',
        querystring: EventListQuerySchema,
        response: { 200: Page(EventEnvelopeSchema) },
      },
      config: { scopes: ['webhooks:read'] },
    },
    async (request) => ctx.reads.run(request.actor, (db) => listEvents(db, request.actor, { ...request.query, limit: request.query.limit ?? 50 })),
  );
}

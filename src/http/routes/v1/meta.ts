/** /v1/meta: who the key is, its clinic, its budgets, and the event catalogue. */
import type { AppContext } from '../../../context.js';
import { MetaSchema, EventTypeListSchema, eventTypes, getMeta } from '../../../modules/meta/index.js';
import type { App } from '../../types.js';

const TAG = 'Meta';

export function registerMetaRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/meta',
    {
      schema: {
        operationId: 'getMeta',
        tags: [TAG],
        summary: 'The key, its clinic and its rate limits',
        description: [
          'Any valid key, no scope needed; not access-logged (no free text or clinical data). An integration’s first call: which key this is (`kind`, `scopes`, `facilityIds`, `agent`, expiry), its clinic (`timezone`, `aiEnabled`, `planActive`) and the server’s clock.',
          '`rateLimits` lists every rate-limit window this request was counted in (the key’s and the clinic’s, ten seconds and the UTC day) with its `limit`, `remaining` and `reset`; the `X-RateLimit-*` headers show only the tightest. Calling it costs budget like any request.',
        ].join('\n\n'),
        response: { 200: MetaSchema },
      },
      config: { scopes: [] },
    },
    async (request) => getMeta(ctx.db, request.actor, { windows: request.rateWindows }),
  );

  app.get(
    '/v1/meta/event-types',
    {
      schema: {
        operationId: 'listEventTypes',
        tags: [TAG],
        summary: 'The event catalogue, as this key may subscribe to it',
        description:
          'Every event type a webhook destination can subscribe to, in the order of the catalogue (the `webhooks` section of this document), with the scope needed to receive it and whether this key may subscribe to it (`subscribable`: it holds that scope and `webhooks:read`). `webhook.test` and `events.skipped` cannot be subscribed to and are not listed. Any valid key, no scope needed.',
        response: { 200: EventTypeListSchema },
      },
      config: { scopes: [] },
    },
    async (request) => ({ data: eventTypes(request.actor) }),
  );
}

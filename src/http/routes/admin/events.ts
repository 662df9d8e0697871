/** Back office: a clinic's events in order, and sample events in a test clinic (`dental-clinic listen` and `trigger`). */
import type { AppContext } from '../../../context.js';
import { ClinicParams, Page } from '../../../core/schemas.js';
import { sampleData } from '../../../event-schemas.js';
import type { EventType } from '../../../events/catalogue.js';
import {
  listEvents,
  WEBHOOK_REASONS,
  triggerSampleEvent,
  EventEnvelopeSchema,
  ClinicEventListQuerySchema,
  TriggerEventSchema,
  TriggeredEventSchema,
} from '../../../modules/webhooks/index.js';
import type { App } from '../../types.js';

export function registerEventAdminRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/admin/v1/clinics/:clinicId/events',
    {
      config: { clinicActor: true },
      schema: {
        operationId: 'adminListEvents',
        tags: ['Admin: webhooks'],
        summary: "List a clinic's events, oldest first",
        description:
          'Every event of the last 30 days, every facility, oldest first (by `createdAt`, then `id`), as `GET /v1/events` shows them to a key with every scope. `dental-clinic listen` reads it.',
        params: ClinicParams,
        querystring: ClinicEventListQuerySchema,
        response: { 200: Page(EventEnvelopeSchema) },
      },
    },
    async (request) => {
      return listEvents(ctx.db, request.actor, { ...request.query, limit: request.query.limit ?? 50 });
    },
  );

  app.post(
    '/admin/v1/clinics/:clinicId/events',
    {
      schema: {
        operationId: 'adminTriggerEvent',
        tags: ['Admin: webhooks'],
        summary: 'Make a sample event in a test clinic',
        description:
          'Records an event of `type` through the outbox, as a change would: the destinations subscribed to it receive it, and `dental-clinic listen` forwards it. ' +
          '`data` has the shape of the type: its example in the `webhooks` section of the /v1 document, with fresh ids and `facilityId` this one. Only in a test clinic: a live clinic is `403 forbidden`, reason `live_clinic`. ' +
          'Like every event, none is made while the clinic has no active API key (`skipped: "no_active_key"`).',
        params: ClinicParams,
        body: TriggerEventSchema,
        response: {
          201: TriggeredEventSchema,
        },
      },
      config: { clinicActor: true, reasons: WEBHOOK_REASONS.triggerSample, bodyIssues: false },
    },
    async (request, reply) => {
      const type = request.body.type as EventType;
      const facilityId = request.body.facilityId ?? null;
      const event = await triggerSampleEvent(ctx.db, request.actor, { type, facilityId, data: sampleData(type, facilityId) });
      return reply.status(201).send(event);
    },
  );
}

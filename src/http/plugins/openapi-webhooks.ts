/**
 * The `webhooks` section of the /v1 document: every event type (the catalogue of
 * src/events/catalogue.ts, plus `events.skipped` and `webhook.test`), with the envelope every
 * delivery carries, its `type` fixed, its `data` described by the schema the outbox records and
 * validates with (src/event-schemas.ts, from each module's events.ts) and that schema's example,
 * the scope a destination needs for it, and the delivery headers.
 */
import { ALL_EVENT_TYPES, EVENT_DATA_SCHEMAS, exampleData } from '../../event-schemas.js';
import { EVENT_SCOPES, type AnyEventType } from '../../events/catalogue.js';
import { EventEnvelopeSchema } from '../../modules/webhooks/index.js';

const HEADERS = {
  'X-Service-Signature': {
    description: '`v1=<hex HMAC-SHA256>` of `v1\\n<timestamp>\\n<idempotency key>\\n<raw body>`; two values during a secret rotation',
    schema: { type: 'string' },
  },
  'X-Service-Timestamp': { description: 'Unix seconds of this attempt; refuse it when more than 5 minutes away', schema: { type: 'string' } },
  'X-Service-Idempotency-Key': { description: 'The delivery id (also `id` in the body): de-duplicate on it', schema: { type: 'string', format: 'uuid' } },
};

const camel = (type: string) => type.replace(/[._]([a-z])/g, (_, c: string) => c.toUpperCase());

/** Who receives an event of this type, and what its `data` is. */
function describe(type: AnyEventType): string {
  if (type === 'events.skipped') {
    return 'Sent instead of events that could not be created (a bulk import, a period without an active key, an internal error), to the destinations subscribed to `data.type` (the key that made the destination needs `data.scope`). Resynchronize with `updatedSince` on the list endpoints. It cannot be chosen in `events`.';
  }
  if (type === 'webhook.test') {
    return 'Sent only by `POST /webhook-endpoints/{id}/test`, with empty `data`; it is not recorded among the events and cannot be chosen in `events`.';
  }
  const [resource] = type.split('.');
  return `Sent to destinations subscribed to \`${type}\` (the key that made the destination needs \`${EVENT_SCOPES[type]}\`). \`data\` is the ${resource!.replace('_', ' ')} as it was at the time of the event, never health data; linked resources appear as ids.`;
}

export function webhooksSection(): Record<string, unknown> {
  const envelope = JSON.parse(JSON.stringify(EventEnvelopeSchema)) as { properties: Record<string, Record<string, unknown>>; title?: string };
  delete envelope.title;
  return Object.fromEntries(
    ALL_EVENT_TYPES.map((type) => {
      const data = exampleData(type) as Record<string, unknown>;
      const example = {
        id: '6b1f3c2a-8d4e-4f5a-9b6c-7d8e9f0a1b2c',
        eventId: '2c9d8e7f-6a5b-4c3d-8e2f-1a0b9c8d7e6f',
        type,
        createdAt: '2026-03-02T09:30:00.000Z',
        apiVersion: 'v1',
        livemode: true,
        facilityId: typeof data.facilityId === 'string' ? data.facilityId : null,
        data,
      };
      const dataSchema = JSON.parse(JSON.stringify(EVENT_DATA_SCHEMAS[type])) as Record<string, unknown>;
      const schema = { ...envelope, properties: { ...envelope.properties, type: { type: 'string', const: type }, data: dataSchema } };
      return [
        type,
        {
          post: {
            tags: ['Webhooks and events'],
            operationId: `on${camel(type).replace(/^./, (c) => c.toUpperCase())}`,
            summary: `${type}`,
            description: `${describe(type)} Verify the signature before trusting it (\`verifyWebhook\` of the client package); answer 2xx within 10 seconds.`,
            parameters: Object.entries(HEADERS).map(([name, h]) => ({ in: 'header', name, required: true, ...h })),
            requestBody: { required: true, content: { 'application/json': { schema, example } } },
            responses: {
              '200': {
                description:
                  type === 'webhook.test'
                    ? 'Received (any 2xx); a test is sent once, never retried'
                    : 'Received (any 2xx); anything else is retried after 1 min, 5 min, 15 min and 1 h',
              },
            },
            security: [],
          },
        },
      ];
    }),
  );
}

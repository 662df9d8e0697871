/**
 * The `webhooks` section of the /v1 document: every event type of the catalogue
 * (src/events/catalogue.ts, the list the outbox records from), with the envelope every delivery
 * carries, its `type` fixed, the scope a destination needs for it, and the delivery headers.
 * `data` is described as the outbox stores it: the resource at the time of the event (no
 * per-type schema exists in the outbox yet, so none is claimed here).
 */
import { EVENT_SCOPES, type EventType } from '../../events/catalogue.js';
import { EventEnvelopeSchema } from '../../modules/webhooks/schema.js';

const HEADERS = {
  'X-Service-Signature': {
    description: '`v1=<hex HMAC-SHA256>` of `v1\\n<timestamp>\\n<idempotency key>\\n<raw body>`; two values during a secret rotation',
    schema: { type: 'string' },
  },
  'X-Service-Timestamp': { description: 'Unix seconds of this attempt; refuse it when more than 5 minutes away', schema: { type: 'string' } },
  'X-Service-Idempotency-Key': { description: 'The delivery id (also `id` in the body): de-duplicate on it', schema: { type: 'string', format: 'uuid' } },
};

const camel = (type: string) => type.replace(/[._]([a-z])/g, (_, c: string) => c.toUpperCase());

export function webhooksSection(): Record<string, unknown> {
  const envelope = JSON.parse(JSON.stringify(EventEnvelopeSchema)) as { properties: Record<string, Record<string, unknown>>; title?: string };
  delete envelope.title;
  return Object.fromEntries(
    (Object.keys(EVENT_SCOPES) as EventType[]).map((type) => {
      const [resource] = type.split('.');
      const example = {
        id: '6b1f3c2a-8d4e-4f5a-9b6c-7d8e9f0a1b2c',
        eventId: '2c9d8e7f-6a5b-4c3d-8e2f-1a0b9c8d7e6f',
        type,
        createdAt: '2026-03-02T09:30:00.000Z',
        apiVersion: 'v1',
        livemode: true,
        facilityId: '7b2e4d6f-1a3c-4e5b-8d7f-9a0b1c2d3e4f',
        data: { id: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a' },
      };
      const schema = { ...envelope, properties: { ...envelope.properties, type: { type: 'string', const: type } } };
      return [
        type,
        {
          post: {
            tags: ['Webhooks and events'],
            operationId: `on${camel(type).replace(/^./, (c) => c.toUpperCase())}`,
            summary: `${type}`,
            description: `Sent to destinations subscribed to \`${type}\` (the key that made the destination needs \`${EVENT_SCOPES[type]}\`). \`data\` is the ${resource!.replace('_', ' ')} as it was at the time of the event, never health data. Verify the signature before trusting it (\`verifyWebhook\` of the client package); answer 2xx within 10 seconds.`,
            parameters: Object.entries(HEADERS).map(([name, h]) => ({ in: 'header', name, required: true, ...h })),
            requestBody: { required: true, content: { 'application/json': { schema, example } } },
            responses: { '200': { description: 'Received (any 2xx); anything else is retried after 1 min, 5 min, 15 min and 1 h' } },
            security: [],
          },
        },
      ];
    }),
  );
}

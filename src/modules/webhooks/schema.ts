/**
 * Webhook destinations, deliveries and events on the wire (spec 2.12, 6): the schemas the routes
 * validate and serialize with, and the service's view types derived from them by `Static<>`.
 */
import { Type, type Static } from 'typebox';
import { InputTimestamp, Nullable, OutputTimestamp, StringEnum, Uuid, PageQueryFields } from '../../core/schemas.js';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../events/catalogue.js';
import { SIGNATURE_SCHEMES } from './signing.js';

const EventTypes = Type.Array(StringEnum(SUBSCRIBABLE_EVENT_TYPES), {
  minItems: 1,
  maxItems: 50,
  uniqueItems: true,
  description:
    '1 to 50 distinct event types of the catalogue (the `webhooks` section of this document). `webhook.test` and `events.skipped` cannot be chosen: `events.skipped` reaches every destination subscribed to its `data.type`.',
});
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'https://, port 443, a public host name. Refused: IP literals in any notation, `localhost`, names under `.localhost`, `.local`, `.internal`, single-label names, names with an empty label (`localhost..`), credentials.',
  examples: ['https://hooks.example.com/dental'],
});
const SignatureSchemeSchema = StringEnum(SIGNATURE_SCHEMES, {
  description:
    'How deliveries are signed. `service` (default): `X-Service-Signature: v1=<hex>` with `X-Service-Timestamp` and `X-Service-Idempotency-Key`. ' +
    '`standard`: [Standard Webhooks](https://www.standardwebhooks.com), `webhook-id` (the delivery id), `webhook-timestamp` and `webhook-signature: v1,<base64>` ' +
    '(space-separated `v1,<new> v1,<old>` during a rotation), instead of the three X-Service headers, so its libraries (`standardwebhooks` on npm, PyPI and others) verify them with the destination secret as given. ' +
    'A destination created before secrets were standard base64 must rotate its secret before choosing `standard` (`409 conflict` reason `secret_rotation_required`).',
  examples: ['service'],
});
const Description = Nullable(Type.String({ maxLength: 500, description: 'Free text for people, up to 500 characters' }));

const endpointFields = {
  id: Uuid(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  signatureScheme: SignatureSchemeSchema,
  enabled: Type.Boolean(),
  disabledReason: Nullable(Type.String({ description: '`too_many_failures` when switched off after 50 discarded deliveries in a row; null otherwise' })),
  previousSecretExpiresAt: Nullable(OutputTimestamp({ description: 'Until when the previous secret also signs (after a rotation); null before any rotation' })),
  createdAt: OutputTimestamp(),
  updatedAt: OutputTimestamp(),
};
export const WebhookEndpointSchema = Type.Object(endpointFields, { additionalProperties: false, title: 'WebhookEndpoint' });
export const WebhookEndpointWithSecret = Type.Object(
  { ...endpointFields, secret: Type.String({ description: 'Signing secret, `whsec_…`: shown only in this response' }) },
  { additionalProperties: false, title: 'WebhookEndpointWithSecret' },
);
export const TestOutcomeSchema = Type.Object(
  {
    id: Uuid({ description: 'The `id` of the test envelope, also its X-Service-Idempotency-Key' }),
    success: Type.Boolean({ description: 'The receiver answered 2xx within 10 seconds' }),
    statusCode: Nullable(Type.Integer({ description: 'The receiver’s HTTP status; null when nothing was answered or sent' })),
    durationMs: Nullable(Type.Integer({ description: 'Time to the receiver’s answer; null when nothing was sent' })),
    error: Nullable(
      Type.String({
        description: 'Kind of network error (timeout, connection_refused, address_refused, dns_error, tls_error, connection_reset, network_error)',
      }),
    ),
    skipped: Nullable(StringEnum(['test_mode'], { description: '`test_mode`: a test-kind key; nothing was sent' })),
  },
  { additionalProperties: false, title: 'WebhookTestOutcome' },
);

const DELIVERY_STATUSES = ['pending', 'delivering', 'succeeded', 'discarded'] as const;

export const AttemptSchema = Type.Object(
  {
    number: Type.Integer({ description: '1 to 5 on the schedule; higher for redeliveries' }),
    startedAt: OutputTimestamp(),
    durationMs: Type.Integer({ description: 'Time to the receiver’s answer or to the error' }),
    statusCode: Nullable(Type.Integer({ description: 'The receiver’s HTTP status; its body is never recorded' })),
    error: Nullable(
      Type.String({
        description:
          'Kind of network error when there was no answer: timeout, connection_refused, connection_reset, dns_error, tls_error, address_refused, network_error',
      }),
    ),
    success: Type.Boolean({ description: '2xx within 10 seconds' }),
    redelivery: Type.Boolean({ description: 'Made after a POST /webhook-deliveries/{id}/redeliver' }),
  },
  { additionalProperties: false, title: 'WebhookAttempt' },
);

const deliveryFields = {
  id: Uuid({ description: 'The delivery id: the envelope `id` and the X-Service-Idempotency-Key' }),
  endpointId: Uuid(),
  eventId: Uuid(),
  eventType: Type.String(),
  status: StringEnum(DELIVERY_STATUSES),
  skippedReason: Nullable(
    Type.String({
      description:
        'Why it finished without being sent: `test_mode` (a test clinic: recorded `succeeded`, nothing leaves), `endpoint_deleted`, `endpoint_disabled`, `key_inactive` (the creating key was revoked or expired; recorded `discarded`)',
    }),
  ),
  attemptCount: Type.Integer(),
  redeliveries: Type.Integer({ description: 'Redeliveries requested, at most 3' }),
  nextAttemptAt: Nullable(OutputTimestamp({ description: 'When the next attempt is due (pending only)' })),
  createdAt: OutputTimestamp(),
  updatedAt: OutputTimestamp(),
  finishedAt: Nullable(OutputTimestamp({ description: 'When it became succeeded or discarded' })),
};
export const DeliverySchema = Type.Object(deliveryFields, { additionalProperties: false, title: 'WebhookDelivery' });
export const DeliveryDetailSchema = Type.Object(
  { ...deliveryFields, attempts: Type.Array(AttemptSchema, { description: 'Every attempt, oldest first' }) },
  { additionalProperties: false, title: 'WebhookDeliveryDetail' },
);

export const EventEnvelopeSchema = Type.Object(
  {
    id: Uuid({ description: 'In GET /events: the event id (in a webhook: the delivery id)' }),
    eventId: Uuid({ description: 'The event id; use it to spot duplicates' }),
    type: Type.String({ description: 'Event type (the `webhooks` section of this document), or `events.skipped`' }),
    createdAt: OutputTimestamp({ description: 'When it happened' }),
    apiVersion: Type.String({ description: 'Version of the shape of `data`: `v1`' }),
    livemode: Type.Boolean({ description: 'false only for the events of a test clinic' }),
    facilityId: Nullable(Uuid()),
    data: Type.Object({}, { additionalProperties: true, description: 'The resource as it was at the time of the event; never health data' }),
  },
  { additionalProperties: false, title: 'EventEnvelope' },
);

export type EndpointView = Static<typeof WebhookEndpointSchema>;
export type EndpointWithSecret = Static<typeof WebhookEndpointWithSecret>;
export type TestOutcome = Static<typeof TestOutcomeSchema>;
export type AttemptView = Static<typeof AttemptSchema>;
/** A delivery; `attempts` only in the detail. */
export type DeliveryView = Static<typeof DeliverySchema> & { attempts?: AttemptView[] };
export type EventEnvelope = Static<typeof EventEnvelopeSchema>;

// ---- Request bodies and querystrings ----

export const NewWebhookEndpointSchema = Type.Object(
  { url: Url, events: EventTypes, description: Type.Optional(Description), signatureScheme: Type.Optional(SignatureSchemeSchema) },
  { additionalProperties: false },
);
export type NewEndpoint = Static<typeof NewWebhookEndpointSchema>;
/** Only sent fields change; at least one is needed. */
export const WebhookEndpointChangesSchema = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(EventTypes),
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean()),
    signatureScheme: Type.Optional(SignatureSchemeSchema),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type EndpointChanges = Static<typeof WebhookEndpointChangesSchema>;
export const RotateSecretSchema = Type.Object(
  {
    overlapMinutes: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 10080, default: 1440, description: 'Minutes the old secret stays valid, 0-10080 (default 1440)' }),
    ),
  },
  { additionalProperties: false },
);
/** Every destination of the clinic: at most 20, so one page (`nextCursor` always null). */
export const WebhookEndpointListSchema = Type.Object({ data: Type.Array(WebhookEndpointSchema), nextCursor: Type.Null() }, { additionalProperties: false });

export const DeliveryListQuerySchema = Type.Object(
  {
    ...PageQueryFields,
    endpointId: Type.Optional(Uuid({ description: 'Only deliveries to this destination' })),
    status: Type.Optional(StringEnum(DELIVERY_STATUSES, { description: 'Only deliveries in this status' })),
  },
  { additionalProperties: false },
);
/** The list's parameters, `limit` defaulted. */
export type DeliveryQuery = Static<typeof DeliveryListQuerySchema> & { limit: number };

/** /v1/events: the events a key sees, optionally of one type. */
export const EventListQuerySchema = Type.Object(
  {
    ...PageQueryFields,
    type: Type.Optional(StringEnum([...SUBSCRIBABLE_EVENT_TYPES, 'events.skipped'], { description: 'Only events of this type' })),
    updatedSince: Type.Optional(InputTimestamp({ description: 'Only events created from this instant on' })),
  },
  { additionalProperties: false },
);
/** Back office: every event of a clinic. */
export const ClinicEventListQuerySchema = Type.Object(
  {
    ...PageQueryFields,
    updatedSince: Type.Optional(InputTimestamp({ description: 'Only events created from this instant on' })),
  },
  { additionalProperties: false },
);

/** Back office: a sample event made in a test clinic. */
export const TriggerEventSchema = Type.Object(
  {
    type: StringEnum(SUBSCRIBABLE_EVENT_TYPES, { description: 'The event type', examples: ['appointment.created'] }),
    facilityId: Type.Optional(Nullable(Uuid({ description: 'The facility of the event (default none)' }))),
  },
  { additionalProperties: false },
);
export const TriggeredEventSchema = Type.Object(
  {
    id: Type.String({ description: 'The event id ("" when none was made)' }),
    type: Type.String(),
    skipped: Type.Optional(StringEnum(['no_active_key', 'error'])),
  },
  { additionalProperties: false },
);

/** POST /v1/webhook-endpoints/{id}/replay: the range of events to send again. */
export const ReplayRequestSchema = Type.Object(
  {
    from: InputTimestamp({
      description: 'First instant of the range (events with `createdAt` ≥ from), within the last 30 days',
      examples: ['2026-03-02T08:00:00Z'],
    }),
    to: InputTimestamp({ description: 'End of the range, excluded (events with `createdAt` < to), after `from`', examples: ['2026-03-02T12:00:00Z'] }),
  },
  { additionalProperties: false },
);
export type ReplayRequest = Static<typeof ReplayRequestSchema>;
export const ReplayResultSchema = Type.Object(
  {
    endpointId: Uuid(),
    from: OutputTimestamp(),
    to: OutputTimestamp(),
    queued: Type.Integer({ description: 'New deliveries queued: one per event of the range the destination would receive (0-10000)' }),
    alreadyPending: Type.Integer({ description: 'Events of the range whose delivery to this destination is still pending or being sent: not queued again' }),
  },
  { additionalProperties: false, title: 'WebhookReplay' },
);
export type ReplayResult = Static<typeof ReplayResultSchema>;

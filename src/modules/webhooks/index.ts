/** The front door of src/modules/webhooks: what code outside the module uses of it (test/layers.test.ts). */
export { endpointBodyIssues, replayBodyIssues } from './checks.js';
export { getDelivery, listDeliveries, listEvents, redeliver, sendTestEvent } from './deliveries.js';
export { createEndpoint, deleteEndpoint, getEndpoint, listEndpoints, MAX_ENDPOINTS_PER_CLINIC, rotateSecret, updateEndpoint } from './destinations.js';
export { webhookJobs } from './jobs.js';
export { registerDeliveryMetrics } from './metrics.js';
export { WEBHOOK_REASONS } from './reasons.js';
export { REPLAY_LIMIT, replayEvents } from './replay.js';
export {
  ClinicEventListQuerySchema,
  DeliveryDetailSchema,
  DeliveryListQuerySchema,
  DeliverySchema,
  EventEnvelopeSchema,
  EventListQuerySchema,
  NewWebhookEndpointSchema,
  ReplayRequestSchema,
  ReplayResultSchema,
  RotateSecretSchema,
  TestOutcomeSchema,
  TriggeredEventSchema,
  TriggerEventSchema,
  WebhookEndpointChangesSchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecret,
} from './schema.js';
export { USER_AGENT } from './sender.js';
export { deliveryHeaders, generateSecret } from './signing.js';
export { triggerSampleEvent } from './trigger.js';
export { startDeliveryWorker } from './worker/loop.js';

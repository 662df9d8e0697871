/** Tables added by the webhooks module's migrations (see src/db/migrations/0030_webhooks.sql and 0031_webhook_polling.sql). */
import type { Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './core.js';

/** `service`: the spec's X-Service-Signature (default); `standard`: Standard Webhooks' webhook-* headers. */
export type SignatureScheme = 'service' | 'standard';

export type DeliveryStatus = 'pending' | 'delivering' | 'succeeded' | 'discarded';

export interface WebhookEndpointsTable {
  id: string;
  clinic_id: string;
  api_key_id: string;
  url: string;
  events: string[];
  description: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: NullableTimestamp;
  /** Migration 0115: which signature headers its deliveries carry. */
  signature_scheme: Generated<SignatureScheme>;
  enabled: Generated<boolean>;
  disabled_reason: string | null;
  consecutive_discarded: Generated<number>;
  deleted_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: Generated<number>;
}

export interface WebhookDeliveriesTable {
  id: string;
  clinic_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  body: string;
  status: DeliveryStatus;
  skipped_reason: string | null;
  attempt_count: Generated<number>;
  attempt_limit: Generated<number>;
  redeliveries: Generated<number>;
  next_attempt_at: Timestamp;
  lease_until: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  finished_at: NullableTimestamp;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  number: number;
  started_at: Timestamp;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  success: boolean;
  redelivery: Generated<boolean>;
}

export interface EventGapsTable {
  clinic_id: string;
  type: string;
  from_at: Timestamp;
  facility_id: string | null;
}

/** One row (0031_webhook_polling.sql): until when a worker looks for deliveries without a NOTIFY. */
export interface WebhookPollingTable {
  id: Generated<boolean>;
  polling_until: Timestamp;
}

export interface WebhooksTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  event_gaps: EventGapsTable;
  webhook_polling: WebhookPollingTable;
}

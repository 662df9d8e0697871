-- Webhook destinations, deliveries and their attempts (spec 2.12, 3.2, 3.3, 6).

CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  -- The key that created the destination: it receives what that key can see (spec 6.3).
  api_key_id uuid NOT NULL REFERENCES api_keys(id),
  url text NOT NULL,
  events text[] NOT NULL,
  description text,
  secret text NOT NULL,
  previous_secret text,
  previous_secret_expires_at timestamptz(3),
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text,
  -- Discarded deliveries in a row; 50 switch the destination off; a success resets it.
  consecutive_discarded integer NOT NULL DEFAULT 0,
  deleted_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  version integer NOT NULL DEFAULT 1
);
CREATE INDEX webhook_endpoints_clinic_idx ON webhook_endpoints (clinic_id, created_at, id) WHERE deleted_at IS NULL;

CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id),
  -- No foreign key: events are purged after 30 days on their own schedule.
  event_id uuid NOT NULL,
  event_type text NOT NULL,
  -- The exact bytes sent on every attempt (the envelope, id = this delivery's id).
  body text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'delivering', 'succeeded', 'discarded')),
  -- Why it finished without being sent: test_mode, endpoint_deleted, endpoint_disabled, key_inactive.
  skipped_reason text,
  attempt_count integer NOT NULL DEFAULT 0,
  -- Attempts allowed before discarding: 5, raised by one at each redelivery.
  attempt_limit integer NOT NULL DEFAULT 5,
  redeliveries integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz(3) NOT NULL DEFAULT now(),
  -- While delivering: until when the claiming worker owns it; after that any worker retakes it.
  lease_until timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  finished_at timestamptz(3)
);
-- The claim walks the clinics with pending work, then each clinic's oldest due rows.
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (clinic_id, next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_inflight_idx ON webhook_deliveries (clinic_id, lease_until) WHERE status = 'delivering';
CREATE INDEX webhook_deliveries_clinic_idx ON webhook_deliveries (clinic_id, created_at, id);
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at, id);
CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (finished_at) WHERE finished_at IS NOT NULL;

CREATE TABLE webhook_attempts (
  id uuid PRIMARY KEY,
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  number integer NOT NULL,
  started_at timestamptz(3) NOT NULL,
  duration_ms integer NOT NULL,
  -- The receiver's HTTP status, or null with error set (timeout, connection_refused, ...).
  status_code integer,
  error text,
  success boolean NOT NULL,
  -- A manual redelivery (POST /webhook-deliveries/{id}/redeliver) rather than the schedule.
  redelivery boolean NOT NULL DEFAULT false
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, number);

-- Spec 6.4 no_active_key: event types missed while the clinic had no active key.
CREATE TABLE event_gaps (
  clinic_id uuid NOT NULL REFERENCES clinics(id),
  type text NOT NULL,
  from_at timestamptz(3) NOT NULL,
  facility_id uuid,
  PRIMARY KEY (clinic_id, type)
);

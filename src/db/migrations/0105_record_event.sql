-- The outbox in one round trip. An event is recorded with its change, and when its
-- insert fails the change still commits with an `events.skipped` reason `error` instead (spec
-- 6.4). That guard was a SAVEPOINT before the insert and a RELEASE after it: two round trips to
-- the database for every event, as many as the insert itself. Here the insert, its fan-out and
-- the workers' notification (src/events/fan-out.ts) are a function whose EXCEPTION block is the
-- savepoint: a failure rolls back what the function did, not the caller's change, and is
-- returned as `error: <message>` for the caller to record `events.skipped`.

-- When an API key is active: not revoked and not expired. The one SQL form of the rule
-- (src/modules/auth/active-key.ts writes it as a call of this function; the planner inlines it).
CREATE FUNCTION api_key_active(revoked_at timestamptz, expires_at timestamptz) RETURNS boolean
LANGUAGE sql STABLE AS $$ SELECT revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()) $$;

-- Inserts the event and one delivery per destination that may receive it (fan-out.ts says who),
-- and notifies `p_channel` when a live delivery was created and no worker is polling already.
-- `p_check_keys`: insert only when the clinic has an active key and no `no_active_key` gap to
-- record first. Returns `inserted`, `held` (not inserted because of the key check), `no_clinic`,
-- or `error: <message>` when the insert failed (nothing of it stays).
-- `p_head` and `p_tail`: the delivery body around its livemode (`{"id":"<delivery id>",` is prefixed).
CREATE FUNCTION record_event(
  p_id uuid, p_clinic_id uuid, p_type text, p_scope text, p_facility_id uuid, p_created_at timestamptz,
  p_data text, p_subscription_type text, p_channel text, p_check_keys boolean, p_head text, p_tail text
) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  v_inserted boolean;
  v_clinic boolean;
  v_notified boolean;
BEGIN
  WITH ev AS (
    INSERT INTO events (id, clinic_id, type, facility_id, scope, livemode, data, created_at)
    SELECT p_id, c.id, p_type, p_facility_id, p_scope, c.mode = 'live', p_data::jsonb, p_created_at
    FROM clinics c
    WHERE c.id = p_clinic_id
      AND (NOT p_check_keys
           OR (EXISTS (SELECT 1 FROM api_keys k WHERE k.clinic_id = p_clinic_id AND api_key_active(k.revoked_at, k.expires_at))
               AND NOT EXISTS (SELECT 1 FROM event_gaps g WHERE g.clinic_id = p_clinic_id)))
    RETURNING events.livemode
  ),
  targets AS (
    SELECT gen_random_uuid() AS id, e.id AS endpoint_id
    FROM webhook_endpoints e
    JOIN api_keys k ON k.id = e.api_key_id
    WHERE e.clinic_id = p_clinic_id
      AND e.deleted_at IS NULL AND e.enabled
      AND p_subscription_type = ANY(e.events)
      AND api_key_active(k.revoked_at, k.expires_at)
      AND 'webhooks:read' = ANY(k.scopes) AND p_scope = ANY(k.scopes)
      AND (k.facility_ids IS NULL
           OR p_facility_id = ANY(k.facility_ids)
           OR (p_type = 'events.skipped' AND p_facility_id IS NULL))
  ),
  del AS (
    INSERT INTO webhook_deliveries (id, clinic_id, endpoint_id, event_id, event_type, body, status, skipped_reason, finished_at, next_attempt_at)
    SELECT t.id, p_clinic_id, t.endpoint_id, p_id, p_type,
           '{"id":"' || t.id::text || '",' || p_head || CASE WHEN ev.livemode THEN 'true' ELSE 'false' END || p_tail,
           CASE WHEN ev.livemode THEN 'pending' ELSE 'succeeded' END,
           CASE WHEN ev.livemode THEN NULL ELSE 'test_mode' END,
           CASE WHEN ev.livemode THEN NULL ELSE now() END,
           now()
    FROM targets t, ev
    RETURNING webhook_deliveries.status
  )
  SELECT EXISTS (SELECT 1 FROM ev),
         EXISTS (SELECT 1 FROM clinics WHERE id = p_clinic_id),
         -- No NOTIFY while a worker has promised to keep looking for at least another second
         -- (0031_webhook_polling.sql): this transaction commits within that second, as a rule,
         -- and a later commit is still found by the workers' regular look (at most a second).
         CASE WHEN EXISTS (SELECT 1 FROM del WHERE status = 'pending')
               AND NOT EXISTS (SELECT 1 FROM webhook_polling WHERE polling_until > clock_timestamp() + interval '1 second')
              THEN (SELECT true FROM pg_notify(p_channel, p_clinic_id::text)) ELSE false END
  INTO v_inserted, v_clinic, v_notified;
  RETURN CASE WHEN v_inserted THEN 'inserted' WHEN v_clinic THEN 'held' ELSE 'no_clinic' END;
EXCEPTION WHEN OTHERS THEN
  RETURN 'error: ' || SQLERRM;
END
$$;

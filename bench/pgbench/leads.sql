-- POST /leads's statements (src/modules/leads/store.ts insertLead), a new lead each time:
-- BEGIN with the locks in one pipeline (one Sync, as src/db/pg-client.ts sends them), then the
-- search, the insert and its event in one statement, whose check refuses the COMMIT that goes
-- with it in a second pipeline (src/db/then-commit.ts).
-- The server prepares them (src/db/prepared-statements.ts): bench:pgbench sends them with -M prepared.
\set n random(1, 2000000000)
\startpipeline
BEGIN;
SELECT pg_advisory_xact_lock(hashtextextended(k, 0))
FROM unnest(ARRAY[:clinic::text || '/lead/email/l' || :client_id::text || 'x' || :n::text || '@example.com', :clinic::text || '/lead/phone/+39348' || :client_id::text || :n::text]) AS k;
\endpipeline
\startpipeline
WITH existing AS (
  SELECT * FROM (
    SELECT * FROM leads WHERE clinic_id = :clinic AND true AND phone = '+39348' || :client_id::text || :n::text
    UNION ALL
    SELECT * FROM leads WHERE clinic_id = :clinic AND true AND lower(email) = 'l' || :client_id::text || 'x' || :n::text || '@example.com'
  ) AS found
  ORDER BY created_at, id LIMIT 1
), inserted AS (
  INSERT INTO leads (id, clinic_id, facility_id, first_name, last_name, email, phone, source, status, created_at, updated_at)
  SELECT gen_random_uuid(), :clinic, NULL, 'Bench', 'Contatto ' || :n::text, 'l' || :client_id::text || 'x' || :n::text || '@example.com', '+39348' || :client_id::text || :n::text, 'website', 'new', now(), now()
  WHERE NOT EXISTS (SELECT 1 FROM existing)
  RETURNING *
), answer AS MATERIALIZED (
SELECT *, true AS created,
  record_event(gen_random_uuid(), :clinic, 'lead.created', 'leads' || chr(58) || 'read', NULL, now(),
  '{"id":"00000000-0000-0000-0000-000000000000","facilityId": null,"source":"website","status":"new","assignedTo": null,"convertedPatientId": null,"createdAt":"2026-11-24T000000Z","updatedAt":"2026-11-24T000000Z"}',
  'lead.created', 'dcm_events', true, '"eventId":"x","type":"lead.created","createdAt":"2026-11-24T000000Z","apiVersion":"v1","livemode":', ',"facilityId": null,"data":{}}') AS event_outcome
FROM inserted UNION ALL SELECT *, false AS created, NULL AS event_outcome FROM existing
)
SELECT * FROM answer WHERE (CASE WHEN answer.created AND answer.event_outcome <> 'inserted' THEN commit_refused('event') END) IS NULL;
COMMIT;
\endpipeline

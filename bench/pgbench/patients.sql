-- POST /patients's statements (src/modules/patients/store.ts insertPatient and
-- src/events/record.ts), a new person each time: BEGIN with the person locks in one pipeline (one
-- Sync, as src/db/pg-client.ts sends them), then the insert with its names, the duplicate search,
-- (no limit here) no count and the event in one statement, whose checks refuse the COMMIT that
-- goes with it in a second pipeline (src/db/then-commit.ts). The lookup keys
-- the service computes in JavaScript are computed here by the statement (the same rows).
-- (pgbench reads `:name` anywhere as a variable: the lock keys use `/` where the service uses `:`.)
-- The server prepares these statements (src/db/prepared-statements.ts): bench:pgbench sends them with -M prepared.
\set n random(1, 2000000000)
\startpipeline
BEGIN;
SELECT pg_try_advisory_xact_lock(hashtextextended(:clinic::text || '/phone/+39347' || :client_id::text || :n::text, 0))
   AND pg_try_advisory_xact_lock(hashtextextended(:clinic::text || '/email/b' || :client_id::text || 'x' || :n::text || '@example.com', 0)) AS ok,
   c.patient_limit,
   CASE WHEN c.patient_limit IS NOT NULL THEN (SELECT true FROM pg_advisory_xact_lock(hashtextextended(:clinic::text || '/patient_limit', 0))) END AS limit_locked
FROM clinics c WHERE c.id = :clinic;
\endpipeline
\startpipeline
WITH created AS (
  INSERT INTO patients (id, clinic_id, facility_id, first_name, last_name, email, phone, created_at, updated_at, first_norm, last_norm, full_norm, phon_first, phon_last)
  VALUES (gen_random_uuid(), :clinic, NULL, 'Bench', 'Paziente ' || :client_id::text || 'x' || :n::text, 'b' || :client_id::text || 'x' || :n::text || '@example.com',
          '+39347' || :client_id::text || :n::text, now(), now(), 'bench', 'paziente ' || :client_id::text || 'x' || :n::text, 'bench paziente ' || :client_id::text || 'x' || :n::text,
          dmetaphone('bench'), dmetaphone('paziente ' || :client_id::text || 'x' || :n::text))
  RETURNING *
), dup AS (
  SELECT id, facility_id FROM (
    SELECT id, facility_id, created_at FROM patients
    WHERE clinic_id = :clinic AND erased_at IS NULL AND full_norm = 'bench paziente ' || :client_id::text || 'x' || :n::text
      AND phone = '+39347' || :client_id::text || :n::text
    UNION ALL
    SELECT id, facility_id, created_at FROM patients
    WHERE clinic_id = :clinic AND erased_at IS NULL AND full_norm = 'bench paziente ' || :client_id::text || 'x' || :n::text
      AND lower(email) = 'b' || :client_id::text || 'x' || :n::text || '@example.com'
  ) AS found
  ORDER BY created_at LIMIT 1
), name_terms AS (
  INSERT INTO patient_name_terms (clinic_id, term, phon)
  SELECT :clinic, t, dmetaphone(t) FROM unnest(ARRAY['bench', 'paziente ' || :client_id::text || 'x' || :n::text]) WITH ORDINALITY AS x(t, o) ORDER BY o
  ON CONFLICT DO NOTHING RETURNING term
), name_keys AS (
  INSERT INTO patient_name_keys (clinic_id, key, term)
  SELECT :clinic, k, term FROM name_terms,
    LATERAL (SELECT term AS k UNION SELECT left(term, i - 1) || substr(term, i + 1) FROM generate_series(1, length(term)) AS i
             UNION SELECT w FROM regexp_split_to_table(term, ' ') AS w WHERE term LIKE '% %') AS keys
  ON CONFLICT DO NOTHING
), written AS MATERIALIZED (
SELECT created.*, (SELECT id FROM dup) AS dup_id, (SELECT facility_id FROM dup) AS dup_facility_id, NULL::bigint AS active_patients,
  record_event(gen_random_uuid(), :clinic, 'patient.created', 'patients' || chr(58) || 'read', NULL, now(),
  '{"id":"00000000-0000-0000-0000-000000000000","facilityId": null,"isActive": true,"archivedAt": null,"createdAt":"2026-11-24T000000Z","updatedAt":"2026-11-24T000000Z"}',
  'patient.created', 'dcm_events', true, '"eventId":"x","type":"patient.created","createdAt":"2026-11-24T000000Z","apiVersion":"v1","livemode":', ',"facilityId": null,"data":{}}') AS event_outcome
FROM created
)
SELECT * FROM written
WHERE (CASE WHEN written.dup_id IS NOT NULL THEN commit_refused('duplicate') WHEN false THEN commit_refused('plan_limit')
            WHEN written.event_outcome <> 'inserted' THEN commit_refused('event') END) IS NULL;
COMMIT;
\endpipeline

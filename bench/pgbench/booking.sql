-- POST /appointments's statements (src/modules/calendars/booking.ts book, without a hold): the
-- calendar with the patient's reference and the doctor's schedule lock (a booking that names its
-- doctor, on a calendar without chairs, locks before it reads: soleSchedulesLock), then one
-- statement: the doctor's appointments and holds around the slot (busyTimesQuery's range
-- overlap), the insert unless it found any (its trigger takes the same lock again), its event,
-- whose check refuses the COMMIT that goes with it (src/modules/appointments/store.ts
-- writeAppointment, src/db/then-commit.ts). Each client books its own doctor's slots
-- (64 doctors), the next 5-minute slot of its own each time: `n` counts the client's bookings
-- (pgbench keeps a client's variables from one transaction to the next; bench/pgbench.ts sets
-- it to 0), and `run` (a new one for every pgbench run) keeps a run off the slots of the runs
-- before. A random slot among 10^8 collided and a run aborted on the overlap constraint: by the
-- birthday bound a doctor booked ~700 times in a run has a 0.2% chance of two equal slots, a few
-- percent or more over the clients and runs of one bench:pgbench (an estimate, not a count).
-- BEGIN goes with the first statement and COMMIT with the last, each in one pipeline (one Sync),
-- as src/db/pg-client.ts sends them.
-- The server prepares both statements (src/db/prepared-statements.ts): bench:pgbench sends the
-- script prepared, and unnamed (-M extended) to show what planning costs.
\set n :n + 1
\set slot :run * 10000000 + :n
\startpipeline
BEGIN;
SELECT c.*, p.id AS ref_patient_id, p.facility_id AS ref_patient_facility_id,
  CASE WHEN cardinality(c.chair_ids) <= 1
        AND (c.doctor_ids[1 + :client_id::int % 64] = ANY(c.doctor_ids))
       THEN (SELECT true FROM lock_schedules(ARRAY[c.doctor_ids[1 + :client_id::int % 64], c.chair_ids[1]])) END AS sole_locked
FROM (VALUES (1)) AS one (x)
LEFT JOIN calendars c ON c.id = :calendar AND c.clinic_id = :clinic
LEFT JOIN patients p ON p.id = :patient AND p.clinic_id = :clinic AND p.erased_at IS NULL;
\endpipeline
\startpipeline
WITH busy AS (
  SELECT doctor_id, chair_id, start_at, end_at, NULL::timestamptz AS expires_at FROM appointments
  WHERE clinic_id = :clinic AND status NOT IN ('cancelled', 'no_show', 'postponed', 'draft')
    AND tstzrange(start_at, end_at, '[)') && tstzrange(date_trunc('day', now()) + interval '1 day' + :slot::int * interval '5 minutes',
                                                       date_trunc('day', now()) + interval '1 day' + (:slot::int + 1) * interval '5 minutes', '[)')
    AND (doctor_id = (SELECT doctor_ids[1 + :client_id::int % 64] FROM calendars WHERE id = :calendar))
  UNION ALL
  SELECT doctor_id, chair_id, start_at, end_at, expires_at FROM slot_holds
  WHERE clinic_id = :clinic AND appointment_id IS NULL AND expires_at > now()
    AND start_at < date_trunc('day', now()) + interval '1 day' + (:slot::int + 1) * interval '5 minutes'
    AND end_at > date_trunc('day', now()) + interval '1 day' + :slot::int * interval '5 minutes'
    AND (doctor_id = ANY(ARRAY[(SELECT doctor_ids[1 + :client_id::int % 64] FROM calendars WHERE id = :calendar)]) OR chair_id = ANY('{}'::uuid[]))
), created AS (
  INSERT INTO appointments (id, clinic_id, patient_id, facility_id, doctor_id, chair_id, calendar_id, start_at, end_at, status, type, category, title, reason, notes, clinical_notes, origin, treatment_plan_id, created_at, updated_at)
  SELECT gen_random_uuid(), :clinic, :patient, :facility, (SELECT doctor_ids[1 + :client_id::int % 64] FROM calendars WHERE id = :calendar), NULL, :calendar,
          date_trunc('day', now()) + interval '1 day' + :slot::int * interval '5 minutes', date_trunc('day', now()) + interval '1 day' + (:slot::int + 1) * interval '5 minutes',
          'scheduled', 'checkup', NULL, NULL, NULL, NULL, NULL, 'voice', NULL, now(), now()
  WHERE NOT EXISTS (SELECT 1 FROM busy)
  RETURNING *
), written AS MATERIALIZED (
SELECT created.*, record_event(gen_random_uuid(), :clinic, 'appointment.created', 'appointments' || chr(58) || 'read', :facility, now(),
  '{"id":"00000000-0000-0000-0000-000000000000","status":"scheduled"}',
  'appointment.created', 'dcm_events', true, '"eventId":"x","type":"appointment.created","createdAt":"2026-11-24T000000Z","apiVersion":"v1","livemode":', ',"facilityId": null,"data":{}}') AS event_outcome
FROM created
)
SELECT * FROM written WHERE (CASE WHEN written.event_outcome <> 'inserted' THEN commit_refused('event') END) IS NULL;
COMMIT;
\endpipeline

/**
 * A clinic with years of agenda, for the agenda benchmarks (bench:stats, bench:confirmations):
 * `patients` patients, `perYear` appointments a patient a year over two years back and a month
 * ahead (past ones completed, no-show 1 in 20 or cancelled 1 in 10; future ones scheduled or
 * confirmed, of one calendar), an accepted waitlist offer for one cancellation in three, a recall
 * attempt for two patients in five over the two years, and the confirmation events of the last
 * 30 days. Set-based SQL: a clinic of 100,000 patients in well under a minute.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import { seedClinic } from './seed.js';

interface AgendaClinic {
  clinicId: string;
  facilityId: string;
  calendarId: string;
  counts: { appointments: number; offers: number; recallAttempts: number; events: number };
}

export async function seedAgendaClinic(db: Kysely<DB>, patients: number, perYear: number): Promise<AgendaClinic> {
  const s = await seedClinic(db, 1, 0);
  const clinicId = s.clinicId;
  const appointments = Math.round(patients * perYear * 2);
  await sql`INSERT INTO patients (id, clinic_id, facility_id, first_name, last_name, phone)
    SELECT gen_random_uuid(), ${clinicId}, ${s.facilityId}, 'Paziente', 'N' || i, '+39333' || lpad(i::text, 7, '0')
    FROM generate_series(1, ${patients}) AS i`.execute(db);
  const cal = await sql<{ id: string }>`INSERT INTO calendars (id, clinic_id, facility_id, name, slot_minutes, working_hours, doctor_ids)
    VALUES (gen_random_uuid(), ${clinicId}, ${s.facilityId}, 'Igiene', 30, '{}'::jsonb, ARRAY[]::uuid[]) RETURNING id`.execute(db);
  const calendarId = cal.rows[0]!.id;
  await sql`WITH p AS (SELECT id, row_number() OVER () AS n FROM patients WHERE clinic_id = ${clinicId})
    INSERT INTO appointments (id, clinic_id, patient_id, facility_id, calendar_id, start_at, end_at, status, type, origin)
    SELECT gen_random_uuid(), ${clinicId}, p.id, ${s.facilityId}, CASE WHEN t > now() THEN ${calendarId}::uuid END, t, t + interval '30 minutes',
      CASE WHEN t > now() THEN (CASE WHEN i % 2 = 0 THEN 'confirmed' ELSE 'scheduled' END)
           WHEN i % 10 = 0 THEN 'cancelled' WHEN i % 20 = 1 THEN 'no_show' ELSE 'completed' END, 'checkup', 'manual'
    FROM generate_series(1, ${appointments}) AS i
      CROSS JOIN LATERAL (SELECT now() - interval '730 days' + (i::float8 / ${appointments}) * interval '760 days' AS t) AS at
      JOIN p ON p.n = 1 + (i % ${patients})`.execute(db);
  await sql`WITH c AS (SELECT patient_id, start_at, end_at, row_number() OVER () AS n FROM appointments WHERE clinic_id = ${clinicId} AND status = 'cancelled'),
    e AS (INSERT INTO waitlist_entries (id, clinic_id, facility_id, calendar_id, patient_id, earliest, latest, channel, status)
      SELECT gen_random_uuid(), ${clinicId}, ${s.facilityId}, ${calendarId}, patient_id, start_at - interval '7 days', end_at, 'phone', 'booked'
      FROM c WHERE n % 3 = 0 RETURNING id, earliest, latest)
    INSERT INTO waitlist_offers (id, clinic_id, facility_id, calendar_id, entry_id, start_at, end_at, expires_at, status)
    SELECT gen_random_uuid(), ${clinicId}, ${s.facilityId}, ${calendarId}, e.id, e.latest - interval '30 minutes', e.latest, e.latest - interval '1 day', 'accepted'
    FROM e`.execute(db);
  await sql`INSERT INTO recall_attempts (id, clinic_id, facility_id, patient_id, channel, outcome, created_at)
    SELECT gen_random_uuid(), ${clinicId}, facility_id, id, 'phone', CASE WHEN abs(hashtext(id::text)) % 4 = 0 THEN 'booked' ELSE 'no_answer' END,
      now() - make_interval(days => abs(hashtext(id::text)) % 730)
    FROM patients WHERE clinic_id = ${clinicId} AND abs(hashtext(id::text)) % 5 < 2`.execute(db);
  await sql`SELECT create_month_partitions('events', now() - interval '31 days', now())`.execute(db);
  await sql`INSERT INTO events (id, clinic_id, type, facility_id, scope, livemode, data, created_at)
    SELECT gen_random_uuid(), ${clinicId}, 'appointment.confirmed', facility_id, 'appointments', true, jsonb_build_object('id', id), start_at - interval '2 days'
    FROM appointments WHERE clinic_id = ${clinicId} AND start_at > now() - interval '28 days' AND start_at < now() AND status = 'completed'`.execute(db);
  // Those visits were confirmed before they were completed, as the status change would have recorded.
  await sql`UPDATE appointments SET confirmed_at = start_at - interval '2 days'
    WHERE clinic_id = ${clinicId} AND start_at > now() - interval '28 days' AND start_at < now() AND status = 'completed'`.execute(db);
  await sql`VACUUM ANALYZE`.execute(db);
  const counts = await sql<AgendaClinic['counts']>`SELECT
    (SELECT count(*)::int FROM appointments WHERE clinic_id = ${clinicId}) AS appointments,
    (SELECT count(*)::int FROM waitlist_offers WHERE clinic_id = ${clinicId}) AS offers,
    (SELECT count(*)::int FROM recall_attempts WHERE clinic_id = ${clinicId}) AS "recallAttempts",
    (SELECT count(*)::int FROM events WHERE clinic_id = ${clinicId}) AS events`.execute(db);
  return { clinicId, facilityId: s.facilityId, calendarId, counts: counts.rows[0]! };
}

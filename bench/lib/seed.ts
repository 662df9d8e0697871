/**
 * Bulk seed for the benchmarks: one clinic with `rows` patients and `rows` appointments,
 * inserted with generate_series straight into the core tables (0001_core.sql). Columns that
 * later migrations add for search (normalized names, phonetic keys) are filled when present,
 * the way the patient service fills them, and the search vocabulary (patient_name_terms and
 * patient_name_keys) through the module's own addNameTerms, so search finds what it would in use.
 */
import { SILENT_LOGGER } from '../../src/core/actor.js';
import { backOfficeActor, createClinic } from '../../src/modules/clinics/index.js';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import { createApiKey, SCOPES } from '../../src/modules/auth/index.js';
import { createCalendar } from '../../src/modules/calendars/index.js';
import { createDoctor } from '../../src/modules/doctors/index.js';
import { createFacility } from '../../src/modules/facilities/index.js';
import { addNameTerms } from '../../src/modules/patients/index.js';

export interface Seeded {
  clinicId: string;
  facilityId: string;
  doctorId: string;
  /** Keys with every scope; requests are spread over them. */
  tokens: string[];
  appointmentId: string;
  patientId: string;
  /** A calendar open around the clock, 5-minute slots, ten years ahead: every booking of the load takes a slot of its own. */
  calendarId: string;
  calendarDoctorIds: string[];
  slotMinutes: number;
  /**
   * A dataset's calendar is not open around the clock nor empty (bench:api --dataset): its free
   * (doctor, start) slots, which the bookings take in turn instead of computing theirs.
   */
  freeSlots?: { doctorId: string; start: string }[];
}

/**
 * Doctors of the booking calendar: a slot can be booked once per doctor, and the bookings of one
 * doctor wait for each other (the schedule lock of migration 0051, held to the commit). With as
 * many doctors as connections, concurrent bookings are of different doctors, as in a clinic's
 * real traffic, and the load measures the route rather than that lock.
 */
const CALENDAR_DOCTORS = 64;
const SLOT_MINUTES = 5;

/** The surnames and first names the seed gives patients (bench/voice.ts says them back). */
export const SURNAMES = [
  'Rossi',
  'Russo',
  'Ferrari',
  'Esposito',
  'Bianchi',
  'Romano',
  'Colombo',
  'Ricci',
  'Marino',
  'Greco',
  'Bruno',
  'Gallo',
  'Conti',
  'De Luca',
  'Mancini',
];
export const NAMES = ['Mario', 'Giulia', 'Luca', 'Francesca', 'Marco', 'Chiara', 'Andrea', 'Sara', 'Matteo', 'Elena', 'Giuseppe', 'Anna'];

/** The same form as normalizeName (src/modules/patients/normalize.ts) in SQL: no accents, no apostrophes, lower case, single spaces. */
export const normSql = (col: string) => `btrim(regexp_replace(regexp_replace(lower(unaccent(${col})), '[''’\`´]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))`;

export async function seedClinic(db: Kysely<DB>, rows: number, keys = 4): Promise<Seeded> {
  const clinic = await createClinic(db, { name: 'Studio Benchmark' });
  const facility = await createFacility(
    db,
    { clinicId: clinic.id, region: 'IT' },
    {
      name: 'Sede Centro',
      city: 'Milano',
      street: 'Via Roma 1',
      province: 'MI',
      zipCode: '20100',
      phone: '+390212345678',
      email: 'centro@example.com',
      isMainLocation: true,
      workingSchedule: {
        mon: [
          { open: '09:00', close: '13:00' },
          { open: '14:00', close: '19:00' },
        ],
        tue: [{ open: '09:00', close: '19:00' }],
        wed: [{ open: '09:00', close: '19:00' }],
      },
    },
  );
  const doctor = await createDoctor(db, clinic.id, { firstName: 'Laura', lastName: 'Bianchi', facilityId: facility.id });
  const calendarDoctorIds: string[] = [];
  for (let i = 0; i < CALENDAR_DOCTORS; i++) {
    calendarDoctorIds.push((await createDoctor(db, clinic.id, { firstName: 'Medico', lastName: `Agenda ${i + 1}`, facilityId: facility.id })).id);
  }
  const allDay = [{ open: '00:00', close: '24:00' }];
  const calendar = await createCalendar(
    db,
    await backOfficeActor(db, clinic.id, { region: 'IT', cursorSecret: 'bench-seed-unused' }, 'bench-seed', SILENT_LOGGER),
    {
      facilityId: facility.id,
      name: 'Agenda benchmark',
      slotMinutes: SLOT_MINUTES,
      workingHours: { mon: allDay, tue: allDay, wed: allDay, thu: allDay, fri: allDay, sat: allDay, sun: allDay },
      doctorIds: calendarDoctorIds,
      horizonDays: 3650,
    },
  );
  const tokens: string[] = [];
  for (let i = 0; i < keys; i++) tokens.push((await createApiKey(db, clinic.id, { name: `bench ${i}`, scopes: [...SCOPES] })).token);

  const surnames = `{${SURNAMES.map((s) => `"${s}"`).join(',')}}`;
  const names = `{${NAMES.map((s) => `"${s}"`).join(',')}}`;
  await sql`
    INSERT INTO patients (id, clinic_id, facility_id, first_name, last_name, email, phone, date_of_birth, gender, tax_code, created_at, updated_at)
    SELECT gen_random_uuid(), ${clinic.id}, ${facility.id},
           (${names}::text[])[1 + i % ${NAMES.length}],
           -- Real-looking names: one surname, or two (about 6 in 7), so a clinic has namesakes as real ones do.
           (${surnames}::text[])[1 + (i / ${NAMES.length}) % ${SURNAMES.length}]
             || CASE WHEN i % 7 = 0 THEN '' ELSE ' ' || (${surnames}::text[])[1 + (i / ${NAMES.length * SURNAMES.length}) % ${SURNAMES.length}] END,
           'paziente' || i || '@example.com',
           '+39333' || lpad(i::text, 7, '0'),
           date '1940-01-01' + (i % 25000),
           (ARRAY['male','female','other','prefer_not_to_say'])[1 + i % 4],
           'TAX' || i,
           now() - make_interval(mins => ${rows} - i),
           now() - make_interval(mins => ${rows} - i)
    FROM generate_series(1, ${rows}) AS i`.execute(db);

  const columns = new Set(
    (
      await sql<{
        column_name: string;
      }>`SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'patients'`.execute(db)
    ).rows.map((r) => r.column_name),
  );
  const sets: string[] = [];
  const norm = normSql;
  if (columns.has('first_norm')) sets.push(`first_norm = ${norm('first_name')}`);
  if (columns.has('last_norm')) sets.push(`last_norm = ${norm('last_name')}`);
  if (columns.has('full_norm')) sets.push(`full_norm = ${norm(`first_name || ' ' || last_name`)}`);
  if (columns.has('phon_first')) sets.push(`phon_first = dmetaphone(first_name)`);
  if (columns.has('phon_last')) sets.push(`phon_last = dmetaphone(last_name)`);
  if (columns.has('tax_code_norm')) sets.push(`tax_code_norm = upper(regexp_replace(tax_code, '[^A-Za-z0-9]', '', 'g'))`);
  if (sets.length) await sql.raw(`UPDATE patients SET ${sets.join(', ')} WHERE clinic_id = '${clinic.id}'`).execute(db);
  // The search module's vocabulary of names (what a patient creation adds one by one).
  const terms = (
    await sql<{ term: string }>`SELECT DISTINCT first_norm AS term FROM patients WHERE clinic_id = ${clinic.id} AND first_norm IS NOT NULL
      UNION SELECT DISTINCT last_norm FROM patients WHERE clinic_id = ${clinic.id} AND last_norm IS NOT NULL`.execute(db)
  ).rows.map((r) => r.term);
  for (let i = 0; i < terms.length; i += 5000) {
    await db.transaction().execute((trx) => addNameTerms(trx, clinic.id, terms.slice(i, i + 5000)));
  }

  // Appointments: one every 30 minutes for the doctor, so no two overlap; statuses mixed.
  await sql`
    WITH p AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM patients WHERE clinic_id = ${clinic.id})
    INSERT INTO appointments (id, clinic_id, patient_id, facility_id, doctor_id, start_at, end_at, status, type, category, title, reason, origin, created_at, updated_at)
    SELECT gen_random_uuid(), ${clinic.id}, p.id, ${facility.id}, ${doctor.id},
           timestamptz '2024-01-01T08:00:00Z' + make_interval(mins => 30 * p.n::int),
           timestamptz '2024-01-01T08:30:00Z' + make_interval(mins => 30 * p.n::int),
           (ARRAY['scheduled','confirmed','completed','cancelled','no_show','checked_in'])[1 + p.n::int % 6],
           (ARRAY['checkup','treatment','consultation','emergency','other'])[1 + p.n::int % 5],
           (ARRAY['recall','treatment_plan','first_visit','case_study','standard'])[1 + p.n::int % 5],
           'Visita ' || p.n, 'Controllo periodico', 'api',
           now() - make_interval(mins => ${rows} - p.n::int),
           now() - make_interval(mins => ${rows} - p.n::int)
    FROM p WHERE p.n <= ${rows}`.execute(db);
  // VACUUM as well: otherwise autovacuum visits the 200,000 new rows while the load runs and
  // takes CPU from whichever route is measured then.
  await sql`VACUUM ANALYZE patients`.execute(db);
  await sql`VACUUM ANALYZE appointments`.execute(db);

  const appointment = await db
    .selectFrom('appointments')
    .select(['id', 'patient_id'])
    .where('clinic_id', '=', clinic.id)
    .orderBy('start_at', 'desc')
    .executeTakeFirstOrThrow();
  return {
    clinicId: clinic.id,
    facilityId: facility.id,
    doctorId: doctor.id,
    tokens,
    appointmentId: appointment.id,
    patientId: appointment.patient_id,
    calendarId: calendar.id,
    calendarDoctorIds,
    slotMinutes: SLOT_MINUTES,
  };
}

/**
 * A database at scale, built by the database itself: every table is filled by set-based SQL
 * (generate_series, INSERT … SELECT), never a request or a service call per row. `npm run
 * seed:scale` (bench/seed-scale.ts) runs it; its test seeds a small size and books on the result.
 *
 * Clinics are numbered 1..N in a work table (`scale_clinics`): the first holds `big` patients,
 * the others share the rest unevenly (weights 1 to 97). Every id is derived from the run's tag,
 * the clinic's number and the row's index (`uid`), so rows refer to each other without joins
 * (appointment k of a clinic is its patient k mod n's). Each clinic gets an organization, a
 * facility, two chairs, doctors (enough for its appointments: each doctor's are one half hour
 * of a distinct weekday slot, so none overlaps), calendars of `doctorsPerCalendar` of those
 * doctors each (the biggest clinic's 160 doctors on one calendar would measure a shape no clinic
 * books on, not a size) open 08:00-19:00 UTC on weekdays, and a key with every scope whose token
 * is derived from the run's secret (`tokenSql`: no token is stored, only its hash, as the
 * service does).
 * Then, over `years` years ending a tenth of a year ahead: appointments (past ones mostly
 * completed), calls, conversations and their messages, tasks, quotes, payments, events (with
 * deliveries for every `endpointEvery`-th clinic, which has a webhook destination) and the
 * access log. The patients' search columns and the name vocabulary are filled as the patient
 * service fills them.
 *
 * It is a bulk load (bench/lib/scale-seed-load.ts): the big tables' indexes, keys and foreign keys
 * are dropped first and built after, each by one sort; on a PostgreSQL server the load and the
 * builds run on two connections side by side, each without waiting for the WAL's flush at commit;
 * the appointments' row triggers are off for their insert; what a row would compute from its
 * clinic alone (its facility's, calendar's and key's ids, the access log's lists of resources) is
 * computed once a clinic.
 */
import { randomBytes } from 'node:crypto';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import { SCOPES } from '../../src/modules/auth/index.js';
import { addNameTerms, normalizeName } from '../../src/modules/patients/index.js';
import { dropIndexes, inSession, isServer, rebuildIndexes, runLanes } from './scale-seed-load.js';
import { NAMES, normSql, SURNAMES } from './seed.js';

export interface ScaleSizes {
  clinics: number;
  patients: number;
  /** Patients of the first clinic (of `patients`). */
  big: number;
  years: number;
  appointmentsPerPatient: number;
  callsPerPatient: number;
  conversationsPerPatient: number;
  messagesPerConversation: number;
  tasksPerPatient: number;
  quotesPerPatient: number;
  paymentsPerPatient: number;
  eventsPerPatient: number;
  /** Every n-th clinic has a webhook destination and a delivery per event. */
  endpointEvery: number;
  /** Doctors per calendar: a clinic of many doctors books them on several calendars (the small datasets' clinics have four doctors on one). */
  doctorsPerCalendar: number;
  accessLog: number;
}

/** The target sizes: 10,000 clinics, 2,000,000 patients, about 20M appointments, 50M access-log rows. */
const FULL: ScaleSizes = {
  clinics: 10_000,
  patients: 2_000_000,
  big: 100_000,
  years: 3,
  appointmentsPerPatient: 10,
  callsPerPatient: 1,
  conversationsPerPatient: 0.5,
  messagesPerConversation: 4,
  tasksPerPatient: 0.5,
  quotesPerPatient: 0.2,
  paymentsPerPatient: 1,
  eventsPerPatient: 5,
  endpointEvery: 10,
  doctorsPerCalendar: 4,
  accessLog: 50_000_000,
};

export const SIZES: Record<string, ScaleSizes> = {
  full: FULL,
  medium: { ...FULL, clinics: 500, patients: 100_000, big: 20_000, accessLog: 2_500_000 },
  small: { ...FULL, clinics: 20, patients: 2_000, big: 500, accessLog: 20_000 },
};

interface ScaleSeeded {
  tag: string;
  /** The key of each clinic, by number (1 is the big clinic): its token, derived from the run's secret. */
  tokens: { clinicId: string; token: string }[];
  /** Rows written per table, and seconds per step. */
  rows: Record<string, number>;
  seconds: Record<string, number>;
}

/** A version-4-shaped uuid derived from a text (md5), so ids are reproducible from the clinic's number and the row's index. */
const uid = (text: RawBuilder<unknown> | string) =>
  sql<string>`overlay(overlay(md5(${typeof text === 'string' ? sql.raw(text) : text}) placing '4' from 13) placing '8' from 17)::uuid`;

/** A clinic's API token, from the run's secret and its number (base64url of a SHA-256: 43 characters, as generateToken's). */
const tokenSql = (secret: string, n: string) =>
  sql<string>`'dcm_live_' || translate(rtrim(encode(sha256(convert_to(${secret} || ':' || ${sql.raw(n)}, 'UTF8')), 'base64'), '='), '+/', '-_')`;
export async function seedScale(db: Kysely<DB>, sizes: ScaleSizes, log: (line: string) => void = () => {}): Promise<ScaleSeeded> {
  const tag = randomBytes(4).toString('hex');
  const secret = randomBytes(16).toString('hex');
  const rows: Record<string, number> = {};
  const seconds: Record<string, number> = {};
  const id = (kind: string, ...parts: string[]) => uid(`'${tag}:${kind}:' || ${parts.join(` || ':' || `)}`);
  const step = async (name: string, work: () => Promise<{ numAffectedRows?: bigint } | void>) => {
    const started = Date.now();
    const result = await work();
    const n = Number(result?.numAffectedRows ?? 0);
    rows[name] = (rows[name] ?? 0) + n;
    seconds[name] = (seconds[name] ?? 0) + (Date.now() - started) / 1000;
    log(`${name}: ${n} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  };
  // On a PostgreSQL server the load runs on two connections side by side (INSERT … SELECT uses one
  // core; the tables of the two lanes do not refer to each other while their keys are dropped).
  const server = await isServer(db);
  const lanes = server ? 2 : 1;
  // The span starts on a Monday and ends a tenth of it ahead: the last weeks hold future appointments.
  const weeks = Math.max(2, Math.round(sizes.years * 52.18));
  const days = weeks * 7;
  const weekdays = weeks * 5;
  const spanStart = sql`(date_trunc('week', now()) - make_interval(weeks => ${Math.round(weeks * 0.9)}))`;
  const rest = Math.max(0, sizes.patients - sizes.big);

  await sql`DROP TABLE IF EXISTS scale_clinics`.execute(db);
  await step('scale_clinics', () =>
    sql`CREATE TABLE scale_clinics AS
      WITH w AS (SELECT n, 1 + (n * 7919) % 97 AS weight FROM generate_series(2, ${sizes.clinics}) AS n)
      SELECT 1 AS n, ${sizes.big}::int AS patients
      UNION ALL SELECT n, greatest(1, floor(${rest}::float8 * weight / sum(weight) OVER ()))::int FROM w`
      .execute(db)
      .then(() => undefined),
  );
  // The clinic's own ids are columns, computed once: an md5 a row costs about a microsecond, and the
  // big tables' rows would each compute several (their facility's, calendar's, key's).
  await sql`ALTER TABLE scale_clinics ADD COLUMN id uuid, ADD COLUMN doctors int, ADD COLUMN facility uuid, ADD COLUMN calendars uuid[], ADD COLUMN key uuid, ADD COLUMN resources uuid[]`.execute(
    db,
  );
  // Each doctor's appointments take distinct half hours of the weekdays' 08:00-19:00 (22 a day; 8 a day
  // at most are taken, from 08:00, so every weekday keeps free time to book).
  const perDoctor = weekdays * 8;
  await sql`UPDATE scale_clinics SET id = ${id('clinic', 'n')}, doctors = greatest(2, ceil(patients * ${sizes.appointmentsPerPatient}::float8 / ${perDoctor}))::int,
      facility = ${id('facility', 'n')}, key = ${id('key', 'n')}`.execute(db);
  // Doctor d is on calendar d / doctorsPerCalendar (its ids computed once, as the clinic's: the
  // appointments pick theirs by index).
  await sql`UPDATE scale_clinics SET calendars = ARRAY(
      SELECT ${id('calendar', 'n', 'g')} FROM generate_series(0, (doctors - 1) / ${sizes.doctorsPerCalendar}) AS g ORDER BY g)`.execute(db);
  // The lists of resources the access log names: a clinic's first (at most) 100 patients, each alone.
  // Their ids (a SHA-256 each, access_log_resources_id) are computed once here, the log's rows pick them
  // by index (under 2 kB with the rest of the row, so the array stays in the row, never toasted).
  await sql`UPDATE scale_clinics SET resources = ARRAY(
      SELECT access_log_resources_id(id, 'patient', ARRAY[${id('patient', 'n', 'r')}]) FROM generate_series(0, least(patients, 100) - 1) AS r ORDER BY r)`.execute(
    db,
  );
  await sql`ALTER TABLE scale_clinics ADD PRIMARY KEY (n)`.execute(db);

  const week = JSON.stringify(Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [{ open: '08:00', close: '19:00' }]])));
  await step('organizations', () => sql`INSERT INTO organizations (id, name) SELECT ${id('org', 'n')}, 'Gruppo ' || n FROM scale_clinics`.execute(db));
  await step('clinics', () =>
    sql`INSERT INTO clinics (id, organization_id, name, mode, timezone) SELECT id, ${id('org', 'n')}, 'Studio ' || n, 'live', 'UTC' FROM scale_clinics`.execute(
      db,
    ),
  );
  await step('facilities', () =>
    sql`INSERT INTO facilities (id, clinic_id, name, city, phone, is_main_location, working_schedule)
      SELECT facility, id, 'Sede ' || n, 'Milano', '+3902' || lpad(n::text, 8, '0'), true, ${week}::jsonb FROM scale_clinics`.execute(db),
  );
  await step('doctors', () =>
    sql`INSERT INTO doctors (id, clinic_id, facility_id, first_name, last_name)
      SELECT ${id('doctor', 'n', 'd')}, c.id, c.facility, (${NAMES}::text[])[1 + d % ${NAMES.length}], 'Medico ' || d
      FROM scale_clinics c, generate_series(0, c.doctors - 1) AS d`.execute(db),
  );
  await step('chairs', () =>
    sql`INSERT INTO chairs (id, clinic_id, facility_id, name) SELECT ${id('chair', 'n', 'k')}, c.id, c.facility, 'Poltrona ' || k FROM scale_clinics c, generate_series(1, 2) AS k`.execute(
      db,
    ),
  );
  await step('calendars', () =>
    sql`INSERT INTO calendars (id, clinic_id, facility_id, name, slot_minutes, working_hours, doctor_ids, horizon_days)
      SELECT c.calendars[g + 1], c.id, c.facility, 'Agenda ' || (g + 1), 30, ${week}::jsonb,
             ARRAY(SELECT ${id('doctor', 'n', 'd')} FROM generate_series(g * ${sizes.doctorsPerCalendar}, least(c.doctors, (g + 1) * ${sizes.doctorsPerCalendar}) - 1) AS d ORDER BY d), 120
      FROM scale_clinics c, generate_series(0, cardinality(c.calendars) - 1) AS g`.execute(db),
  );
  await step('api_keys', () =>
    sql`INSERT INTO api_keys (id, clinic_id, name, kind, token_hash, token_prefix, scopes)
      SELECT key, id, 'seed:scale', 'live', encode(sha256(convert_to(t, 'UTF8')), 'hex'), left(t, 16), ${[...SCOPES]}::text[]
      FROM (SELECT n, id, key, ${tokenSql(secret, 'n')} AS t FROM scale_clinics) AS k`.execute(db),
  );

  const dropped = await dropIndexes(db);
  // The tables partitioned by month need the months of the span (the service makes only the current ones).
  for (const table of ['events', 'access_log']) {
    await sql`SELECT create_month_partitions(${table}, ${spanStart}, ${spanStart} + make_interval(days => ${days}))`.execute(db);
  }
  // Clinics in batches of about a million patients, so every statement is of a bounded size and the log shows progress.
  const batches: [number, number][] = [];
  const counts = (await sql<{ n: number; patients: number }>`SELECT n, patients FROM scale_clinics ORDER BY n`.execute(db)).rows;
  for (let i = 0, sum = 0, from = 1; i < counts.length; i++) {
    sum += counts[i]!.patients;
    if (sum >= 1_000_000 || i === counts.length - 1) {
      batches.push([from, counts[i]!.n]);
      from = counts[i]!.n + 1;
      sum = 0;
    }
  }
  const totalPatients = counts.reduce((s, c) => s + c.patients, 0);
  const norm = (col: string) => sql.raw(normSql(col));
  const fraction = (per: number) => sql.raw(String(per));
  const clinicsOf = ([from, to]: [number, number]) => sql`(SELECT * FROM scale_clinics WHERE n BETWEEN ${from} AND ${to})`;

  // Lane 1: the patients, their appointments and the events (with their deliveries).
  const people = async (conn: Kysely<DB>) => {
    for (const batch of batches) {
      const clinics = clinicsOf(batch);
      // The search columns are written with the row, as the service does (an UPDATE after would write every patient twice).
      await step('patients', () =>
        sql`INSERT INTO patients (id, clinic_id, facility_id, first_name, last_name, email, phone, date_of_birth, gender, tax_code, created_at, updated_at,
                                  first_norm, last_norm, full_norm, phon_first, phon_last, tax_code_norm)
          SELECT *, ${norm('first_name')}, ${norm('last_name')}, ${norm(`first_name || ' ' || last_name`)}, dmetaphone(first_name), dmetaphone(last_name),
                 upper(regexp_replace(tax_code, '[^A-Za-z0-9]', '', 'g'))
          FROM (
            SELECT ${id('patient', 'c.n', 'i')}, c.id, c.facility,
                   (${NAMES}::text[])[1 + i % ${NAMES.length}] AS first_name,
                   (${SURNAMES}::text[])[1 + (i / ${NAMES.length}) % ${SURNAMES.length}]
                     || CASE WHEN i % 7 = 0 THEN '' ELSE ' ' || (${SURNAMES}::text[])[1 + (i / ${NAMES.length * SURNAMES.length}) % ${SURNAMES.length}] END AS last_name,
                   'p' || c.n || '.' || i || '@example.com', '+393' || lpad(i::text, 9, '0'), date '1940-01-01' + ((i::bigint * 7919) % 25000)::int,
                   (ARRAY['male','female','other','prefer_not_to_say'])[1 + i % 4], 'TAX' || c.n || 'X' || i AS tax_code,
                   ${spanStart} + make_interval(days => (i * 31) % ${days}), ${spanStart} + make_interval(days => (i * 31) % ${days})
            FROM ${clinics} AS c, generate_series(0, c.patients - 1) AS i
          ) AS p`.execute(conn),
      );
      // Appointment k of a clinic: patient k mod n, doctor k mod d, that doctor's (k / d)-th weekday half hour.
      // Its row triggers are off for the load (session_replication_role): a NOTIFY of the change feed and
      // two plpgsql calls a row (the schedules' advisory locks, against concurrent bookings there are none
      // of; confirmed_at, for status 'confirmed', which the seed never writes); the feed is told once a
      // clinic after.
      await sql`SET session_replication_role = replica`.execute(conn);
      try {
        await step('appointments', () =>
          sql`INSERT INTO appointments (id, clinic_id, patient_id, facility_id, doctor_id, calendar_id, start_at, end_at, status, type, category, title, origin, created_at, updated_at)
            SELECT ${id('appt', 'n', 'k')}, clinic_id, ${id('patient', 'n', 'k % patients')}, facility, ${id('doctor', 'n', 'k % doctors')}, calendars[1 + (k % doctors) / ${sizes.doctorsPerCalendar}],
                   at, at + interval '30 minutes',
                   CASE WHEN at > now() THEN 'scheduled' WHEN k % 10 = 0 THEN 'cancelled' WHEN k % 10 = 1 THEN 'no_show' ELSE 'completed' END,
                   (ARRAY['checkup','treatment','consultation','emergency','other'])[1 + k % 5],
                   (ARRAY['recall','treatment_plan','first_visit','case_study','standard'])[1 + k % 5],
                   'Visita', 'api', at - interval '7 days', at - interval '7 days'
            FROM (
              SELECT c.n, c.id AS clinic_id, c.patients, c.doctors, c.facility, c.calendars, k,
                     ${spanStart} + make_interval(days => (w / 5) * 7 + w % 5, hours => 8, mins => 30 * h) AS at
              FROM ${clinics} AS c,
                   generate_series(0, (c.patients * ${fraction(sizes.appointmentsPerPatient)})::int - 1) AS k,
                   LATERAL (SELECT (k / c.doctors) % ${weekdays} AS w, (k / c.doctors) / ${weekdays} AS h) AS slot
            ) AS a`.execute(conn),
        );
      } finally {
        await sql`RESET session_replication_role`.execute(conn);
      }
      await sql`SELECT pg_notify('dcm_changes', 'appointments:' || c.id) FROM ${clinics} AS c`.execute(conn);
      await step('events', () =>
        sql`INSERT INTO events (id, clinic_id, type, facility_id, scope, livemode, data, created_at)
          SELECT ${id('event', 'c.n', 'k')}, c.id, 'appointment.created', c.facility, 'appointments:read', true,
                 jsonb_build_object('id', ${id('appt', 'c.n', 'k')}, 'patientId', ${id('patient', 'c.n', 'k % c.patients')}), t
          FROM ${clinics} AS c, generate_series(0, (c.patients * ${fraction(sizes.eventsPerPatient)})::int - 1) AS k,
               LATERAL (SELECT ${spanStart} + make_interval(mins => ((k::bigint * 7877) % (${days} * 1440))::int) AS t) AS tt`.execute(conn),
      );
    }
    await step('webhook_endpoints', () =>
      sql`INSERT INTO webhook_endpoints (id, clinic_id, api_key_id, url, events, secret)
        SELECT ${id('endpoint', 'n')}, id, key, 'https://hooks.example.com/' || n, ARRAY['appointment.created'], md5(${secret} || n)
        FROM scale_clinics WHERE n % ${sizes.endpointEvery} = 0`.execute(conn),
    );
    await step('webhook_deliveries', () =>
      sql`INSERT INTO webhook_deliveries (id, clinic_id, endpoint_id, event_id, event_type, body, status, attempt_count, created_at, updated_at, finished_at)
        SELECT e.id, e.clinic_id, ${id('endpoint', 'c.n')}, e.id, e.type, '{}', 'succeeded', 1, e.created_at, e.created_at, e.created_at + interval '1 second'
        FROM scale_clinics c JOIN events e ON e.clinic_id = c.id WHERE c.n % ${sizes.endpointEvery} = 0`.execute(conn),
    );
  };

  // Lane 2: calls, conversations and messages, tasks, quotes, payments, then the access log.
  const activity = async (conn: Kysely<DB>) => {
    for (const batch of batches) {
      const clinics = clinicsOf(batch);
      await step('calls', () =>
        sql`INSERT INTO calls (id, clinic_id, facility_id, external_call_id, direction, from_number, to_number, started_at, duration_seconds, outcome, patient_id, created_at, updated_at)
          SELECT ${id('call', 'c.n', 'k')}, c.id, c.facility, 'SEED-${sql.raw(tag)}-' || c.n || '-' || k, 'inbound', '+393' || lpad((k % c.patients)::text, 9, '0'),
                 '+3902' || lpad(c.n::text, 8, '0'), t, 30 + k % 600, (ARRAY['booked','info','callback','no_answer'])[1 + k % 4], ${id('patient', 'c.n', 'k % c.patients')}, t, t
          FROM ${clinics} AS c, generate_series(0, (c.patients * ${fraction(sizes.callsPerPatient)})::int - 1) AS k,
               LATERAL (SELECT ${spanStart} + make_interval(mins => ((k::bigint * 7919) % (${days} * 1440))::int) AS t) AS tt`.execute(conn),
      );
      await step('conversations', () =>
        sql`INSERT INTO conversations (id, clinic_id, facility_id, patient_id, phone, last_activity_at, created_at, updated_at)
          SELECT ${id('conv', 'c.n', 'k')}, c.id, c.facility, ${id('patient', 'c.n', 'k % c.patients')}, '+393' || lpad((k % c.patients)::text, 9, '0'), t, t, t
          FROM ${clinics} AS c, generate_series(0, (c.patients * ${fraction(sizes.conversationsPerPatient)})::int - 1) AS k,
               LATERAL (SELECT ${spanStart} + make_interval(mins => ((k::bigint * 104729) % (${days} * 1440))::int) AS t) AS tt`.execute(conn),
      );
      await step('chat_messages', () =>
        sql`INSERT INTO chat_messages (id, clinic_id, conversation_id, direction, author, type, body, occurred_at, created_at)
          SELECT ${id('msg', 'c.n', 'k', 'm')}, c.id, ${id('conv', 'c.n', 'k')}, CASE WHEN m % 2 = 0 THEN 'in' ELSE 'out' END, CASE WHEN m % 2 = 0 THEN 'paziente' ELSE 'bot' END,
                 'testo', 'Messaggio ' || m, t + make_interval(mins => m), t + make_interval(mins => m)
          FROM ${clinics} AS c, generate_series(0, (c.patients * ${fraction(sizes.conversationsPerPatient)})::int - 1) AS k,
               generate_series(0, ${sizes.messagesPerConversation - 1}) AS m,
               LATERAL (SELECT ${spanStart} + make_interval(mins => ((k::bigint * 104729) % (${days} * 1440))::int) AS t) AS tt`.execute(conn),
      );
      await step('tasks', () =>
        sql`INSERT INTO tasks (id, clinic_id, facility_id, patient_id, title, status, due_date, created_at, updated_at)
          SELECT ${id('task', 'c.n', 'k')}, c.id, c.facility, ${id('patient', 'c.n', 'k % c.patients')}, 'Richiamare', (ARRAY['todo','in_progress','done'])[1 + k % 3], t + interval '3 days', t, t
          FROM ${clinics} AS c, generate_series(0, (c.patients * ${fraction(sizes.tasksPerPatient)})::int - 1) AS k,
               LATERAL (SELECT ${spanStart} + make_interval(mins => ((k::bigint * 7907) % (${days} * 1440))::int) AS t) AS tt`.execute(conn),
      );
      // Quotes numbered P-<year>-S<k>: the service's own numbers (P-<year>-0001) never meet them.
      await step('treatment_plans', () =>
        sql`INSERT INTO treatment_plans (id, clinic_id, facility_id, patient_id, number, title, total_amount, subtotal_amount, status, created_at, updated_at)
          SELECT ${id('quote', 'c.n', 'k')}, c.id, c.facility, ${id('patient', 'c.n', 'k % c.patients')}, 'P-' || extract(year FROM t) || '-S' || k, 'Piano di cura',
                 100 + k % 900, 100 + k % 900, (ARRAY['draft','presented','accepted','rejected'])[1 + k % 4], t, t
          FROM ${clinics} AS c, generate_series(0, (c.patients * ${fraction(sizes.quotesPerPatient)})::int - 1) AS k,
               LATERAL (SELECT ${spanStart} + make_interval(mins => ((k::bigint * 7901) % (${days} * 1440))::int) AS t) AS tt`.execute(conn),
      );
      await step('payments', () =>
        sql`INSERT INTO payments (id, clinic_id, facility_id, patient_id, amount, method, received_at, created_at)
          SELECT ${id('pay', 'c.n', 'k')}, c.id, c.facility, ${id('patient', 'c.n', 'k % c.patients')}, 20 + k % 500,
                 (ARRAY['cash','card','bank_transfer','financing','other'])[1 + k % 5], t, t
          FROM ${clinics} AS c, generate_series(0, (c.patients * ${fraction(sizes.paymentsPerPatient)})::int - 1) AS k,
               LATERAL (SELECT ${spanStart} + make_interval(mins => ((k::bigint * 7883) % (${days} * 1440))::int) AS t) AS tt`.execute(conn),
      );
    }
    // The access log: rows in proportion to each clinic's patients, each naming a patient it read.
    await step('access_log_resources', () =>
      sql`INSERT INTO access_log_resources (id, clinic_id, resource_type, resource_ids)
        SELECT c.resources[1 + r], c.id, 'patient', ARRAY[${id('patient', 'c.n', 'r')}]
        FROM scale_clinics c, generate_series(0, least(c.patients, 100) - 1) AS r`.execute(conn),
    );
    for (const [from, to] of batches) {
      await step('access_log', () =>
        sql`INSERT INTO access_log (id, clinic_id, api_key_id, request_id, fields, at, resources_id)
          SELECT ${id('access', 'c.n', 'k')}, c.id, c.key, 'req_seed_' || k, ARRAY['firstName','lastName','phone'],
                 ${spanStart} + make_interval(secs => ((k::bigint * 7919) % (${days} * 86400))::int), c.resources[1 + k % least(c.patients, 100)]
          FROM scale_clinics c, generate_series(0, (c.patients::float8 * ${sizes.accessLog} / ${totalPatients})::int - 1) AS k
          WHERE c.n BETWEEN ${from} AND ${to}`.execute(conn),
      );
    }
  };
  if (lanes > 1) await Promise.all([inSession(db, server, people), inSession(db, server, activity)]);
  else await inSession(db, server, (conn) => people(conn).then(() => activity(conn)));

  await step('indexes rebuilt', () => rebuildIndexes(db, server, lanes, dropped, log));
  // The name vocabulary (what a patient creation adds through the service), for the first clinic, then copied to every other one.
  await step('patient_name_terms', async () => {
    const first = (await sql<{ id: string }>`SELECT id FROM scale_clinics WHERE n = 1`.execute(db)).rows[0]!.id;
    const terms = [...new Set([...NAMES, ...SURNAMES].map((t) => normalizeName(t)))];
    await db.transaction().execute((trx) => addNameTerms(trx, first, terms));
    await sql`INSERT INTO patient_name_terms (clinic_id, term, phon) SELECT c.id, t.term, t.phon FROM patient_name_terms t CROSS JOIN scale_clinics c WHERE t.clinic_id = ${first} AND c.n > 1`.execute(
      db,
    );
    return sql`INSERT INTO patient_name_keys (clinic_id, key, term) SELECT c.id, t.key, t.term FROM patient_name_keys t CROSS JOIN scale_clinics c WHERE t.clinic_id = ${first} AND c.n > 1`.execute(
      db,
    );
  });
  const tokens = (
    await sql<{ clinicId: string; token: string }>`SELECT id AS "clinicId", ${tokenSql(secret, 'n')} AS token FROM scale_clinics ORDER BY n`.execute(db)
  ).rows;
  await sql`DROP TABLE scale_clinics`.execute(db);
  // Every table once, the big ones spread over the lanes.
  await step('analyze', async () => {
    const tables = await sql<{ name: string }>`SELECT relname AS name FROM pg_class WHERE relkind IN ('r', 'p') AND NOT relispartition
      AND relnamespace = current_schema()::regnamespace ORDER BY (SELECT sum(pg_relation_size(p.relid)) FROM pg_partition_tree(pg_class.oid) AS p) DESC`.execute(
      db,
    );
    await runLanes(
      db,
      server,
      lanes,
      tables.rows.map((t) => ({ tables: [t.name], exclusive: false, run: (conn) => sql`ANALYZE ${sql.table(t.name)}`.execute(conn).then(() => undefined) })),
    );
  });
  return { tag, tokens, rows, seconds };
}

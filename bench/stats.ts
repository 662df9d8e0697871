/**
 * Agenda statistics benchmark: `npm run bench:stats [-- options]`.
 *
 * GET /v1/stats/agenda over a year and a week (371 days, 54 weeks) on a clinic of
 * `--patients=100000` patients with two years of history: `--per-year=1.5` appointments a patient
 * a year (completed, no-shows, cancellations, confirmed ones ahead), an accepted waitlist offer
 * for one cancellation in three, a recall attempt for one patient in five a year, and the
 * confirmation events of the last 30 days. `--reads=100` requests one after another, p50 / p95 /
 * p99 / max. Target: p99 under 200 ms.
 *
 * The service runs in this process (HTTP on 127.0.0.1, requests sequential). `--engines=pglite,postgres`
 * (postgres needs DATABASE_URL; a database of its own is created and dropped).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { request } from 'undici';
import { buildApp } from '../src/app.js';
import { closeContext, createContext } from '../src/bootstrap.js';
import { testConfig } from '../src/config.js';
import { createApiKey } from '../src/modules/auth/index.js';
import { BENCH_LIMITS } from './lib/constants.js';
import { benchArgs, dedicatedDatabase, machine, percentile as pct } from './lib/harness.js';
import { seedClinic } from './lib/seed.js';

const args = benchArgs();
const PATIENTS = Number(args.patients ?? 100_000);
const PER_YEAR = Number(args['per-year'] ?? 1.5);
const READS = Number(args.reads ?? 100);
const ENGINES = (args.engines ?? (process.env.DATABASE_URL ? 'postgres,pglite' : 'pglite')).split(',');

const summary = (xs: number[]) =>
  `p50 ${pct(xs, 50).toFixed(2)} ms, p95 ${pct(xs, 95).toFixed(2)} ms, p99 ${pct(xs, 99).toFixed(2)} ms, max ${Math.max(...xs).toFixed(2)} ms`;

async function timed(url: string, token: string): Promise<number> {
  const t = process.hrtime.bigint();
  const res = await request(url, { headers: { authorization: `Bearer ${token}` } });
  await res.body.text();
  if (res.statusCode >= 300) throw new Error(`GET ${url}: ${res.statusCode}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

async function runEngine(engine: string): Promise<void> {
  const pg = engine === 'postgres' ? await dedicatedDatabase(process.env.DATABASE_URL!, 'bench_stats') : null;
  const dataDir = pg ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'dcm-bench-stats-'));
  const ctx = await createContext(testConfig({ databaseUrl: pg?.url ?? null, dataDir: dataDir ?? './data', logLevel: 'silent' }));
  try {
    const seedStart = Date.now();
    const s = await seedClinic(ctx.db, 1, 0);
    const clinicId = s.clinicId;
    const appointments = Math.round(PATIENTS * PER_YEAR * 2);
    await sql`INSERT INTO patients (id, clinic_id, facility_id, first_name, last_name, phone)
      SELECT gen_random_uuid(), ${clinicId}, ${s.facilityId}, 'Paziente', 'N' || i, '+39333' || lpad(i::text, 7, '0')
      FROM generate_series(1, ${PATIENTS}) AS i`.execute(ctx.db);
    // Two years back and a month ahead, spread evenly; past ones completed, no-show (1 in 20) or
    // cancelled (1 in 10), future ones scheduled or confirmed.
    await sql`WITH p AS (SELECT id, row_number() OVER () AS n FROM patients WHERE clinic_id = ${clinicId})
      INSERT INTO appointments (id, clinic_id, patient_id, facility_id, start_at, end_at, status, type, origin)
      SELECT gen_random_uuid(), ${clinicId}, p.id, ${s.facilityId}, t, t + interval '30 minutes',
        CASE WHEN t > now() THEN (CASE WHEN i % 2 = 0 THEN 'confirmed' ELSE 'scheduled' END)
             WHEN i % 10 = 0 THEN 'cancelled' WHEN i % 20 = 1 THEN 'no_show' ELSE 'completed' END, 'checkup', 'manual'
      FROM generate_series(1, ${appointments}) AS i
        CROSS JOIN LATERAL (SELECT now() - interval '730 days' + (i::float8 / ${appointments}) * interval '760 days' AS t) AS at
        JOIN p ON p.n = 1 + (i % ${PATIENTS})`.execute(ctx.db);
    const cal = await sql<{ id: string }>`INSERT INTO calendars (id, clinic_id, facility_id, name, slot_minutes, working_hours, doctor_ids)
      VALUES (gen_random_uuid(), ${clinicId}, ${s.facilityId}, 'Igiene', 30, '{}'::jsonb, ARRAY[]::uuid[]) RETURNING id`.execute(ctx.db);
    const calendarId = cal.rows[0]!.id;
    // An accepted offer (with its entry) for one cancellation in three.
    await sql`WITH c AS (SELECT patient_id, start_at, end_at, row_number() OVER () AS n FROM appointments WHERE clinic_id = ${clinicId} AND status = 'cancelled'),
      e AS (INSERT INTO waitlist_entries (id, clinic_id, facility_id, calendar_id, patient_id, earliest, latest, channel, status)
        SELECT gen_random_uuid(), ${clinicId}, ${s.facilityId}, ${calendarId}, patient_id, start_at - interval '7 days', end_at, 'phone', 'booked'
        FROM c WHERE n % 3 = 0 RETURNING id, earliest, latest)
      INSERT INTO waitlist_offers (id, clinic_id, facility_id, calendar_id, entry_id, start_at, end_at, expires_at, status)
      SELECT gen_random_uuid(), ${clinicId}, ${s.facilityId}, ${calendarId}, e.id, e.latest - interval '30 minutes', e.latest, e.latest - interval '1 day', 'accepted'
      FROM e`.execute(ctx.db);
    await sql`INSERT INTO recall_attempts (id, clinic_id, facility_id, patient_id, channel, outcome, created_at)
      SELECT gen_random_uuid(), ${clinicId}, facility_id, id, 'phone', CASE WHEN abs(hashtext(id::text)) % 4 = 0 THEN 'booked' ELSE 'no_answer' END,
        now() - make_interval(days => abs(hashtext(id::text)) % 730)
      FROM patients WHERE clinic_id = ${clinicId} AND abs(hashtext(id::text)) % 5 < 2`.execute(ctx.db);
    await sql`INSERT INTO events (id, clinic_id, type, facility_id, scope, livemode, data, created_at)
      SELECT gen_random_uuid(), ${clinicId}, 'appointment.confirmed', facility_id, 'appointments', true, jsonb_build_object('id', id), start_at - interval '2 days'
      FROM appointments WHERE clinic_id = ${clinicId} AND start_at > now() - interval '28 days' AND start_at < now() AND status = 'completed'`.execute(ctx.db);
    await sql`VACUUM ANALYZE`.execute(ctx.db);
    const seedSeconds = (Date.now() - seedStart) / 1000;
    const counts = await sql<{ a: number; o: number; r: number; e: number }>`SELECT
      (SELECT count(*)::int FROM appointments WHERE clinic_id = ${clinicId}) AS a, (SELECT count(*)::int FROM waitlist_offers WHERE clinic_id = ${clinicId}) AS o,
      (SELECT count(*)::int FROM recall_attempts WHERE clinic_id = ${clinicId}) AS r, (SELECT count(*)::int FROM events WHERE clinic_id = ${clinicId}) AS e`.execute(
      ctx.db,
    );

    const key = await createApiKey(ctx.db, clinicId, { name: 'bench', scopes: ['appointments:read'] });
    const app = await buildApp({ ctx, rateLimits: BENCH_LIMITS, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/v1/stats/agenda?from=${day(-364)}&to=${day(7)}`;
    try {
      for (let i = 0; i < 5; i++) await timed(url, key.token);
      const reads: number[] = [];
      for (let i = 0; i < READS; i++) reads.push(await timed(url, key.token));
      const c = counts.rows[0]!;
      console.log(
        `\n${ctx.database.engine}: ${PATIENTS} patients, ${c.a} appointments over two years, ${c.o} accepted offers, ${c.r} recall attempts, ${c.e} events; seeded in ${seedSeconds.toFixed(1)} s`,
      );
      console.log(`  GET /v1/stats/agenda, 371 days (54 weeks), ${READS} requests: ${summary(reads)}`);
    } finally {
      await app.close();
    }
  } finally {
    await closeContext(ctx);
    await pg?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

console.log(machine());
for (const engine of ENGINES) await runEngine(engine);

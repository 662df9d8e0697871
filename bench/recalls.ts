/**
 * Outbound benchmark: `npm run bench:recalls [-- options]`.
 *
 * 1. GET /v1/recalls (first page of 50, most overdue first) on a clinic of `--patients=100000`
 *    patients, each with a completed check-up 1-24 months ago and a fifth of them with a future
 *    check-up booked (so the list's read-time checks have rows to skip): `--reads=300` requests
 *    one after another, p50 / p95 / p99 / max. Target: p99 under 50 ms.
 * 2. Cancellations through POST /v1/appointments/{id}/cancel, alternated: one on a calendar with
 *    nobody waiting (a plain cancellation), one on a calendar whose waitlist gets an offer of the
 *    freed slot; `--cancels=200` of each. Target: the offer adds under 10 ms at p99.
 *
 * The service runs in this process (HTTP on 127.0.0.1, requests sequential, so the loop is not
 * shared with concurrent callers). `--engines=pglite,postgres` (postgres needs DATABASE_URL; a
 * database of its own is created and dropped).
 *
 * `--dataset=<postgres url | database name next to DATABASE_URL's>` `--tokens=FILE`: no seed; the
 * service opens that database as it is (migrations already applied; kept at the end), e.g. one
 * `npm run seed:scale -- --database=NAME --tokens=FILE` made. The reads go to `--clinics=20` of
 * its clinics (the biggest by patients, a tenth of the reads, and others drawn at random), each
 * with its key of FILE; a clinic without recall rules is given this benchmark's (check-ups every
 * 6 months: written to the dataset, its worklist computed then, and timed). The cancellations
 * are made as without a dataset, in its biggest clinic: two calendars of a new doctor each, the
 * bookings and the waitlist entries of its patients (left in the dataset, cancelled).
 * PostgreSQL only.
 */
import { sql } from 'kysely';
import { actorEnvironment } from '../src/context.js';
import { SILENT_LOGGER } from '../src/core/actor.js';
import { createApiKey } from '../src/modules/auth/index.js';
import { bookAppointment } from '../src/modules/scheduling/index.js';
import { createCalendar } from '../src/modules/calendars/index.js';
import { backOfficeActor } from '../src/modules/clinics/index.js';
import { createDoctor } from '../src/modules/doctors/index.js';
import { getRecallRules, setRecallRules } from '../src/modules/recalls/index.js';
import type { AppContext } from '../src/context.js';
import { createEntry } from '../src/modules/waitlist/index.js';
import { datasetClinics, datasetUrl, readTokens } from './lib/dataset.js';
import { benchArgs, machine, percentile as pct } from './lib/harness.js';
import { timedRequest, withInProcessService } from './lib/in-process.js';
import { seedClinic } from './lib/seed.js';

const args = benchArgs();
const PATIENTS = Number(args.patients ?? 100_000);
const READS = Number(args.reads ?? 300);
const CANCELS = Number(args.cancels ?? 200);
const DATASET = args.dataset;
const CLINICS = Number(args.clinics ?? 20);
const ENGINES = DATASET ? ['postgres'] : (args.engines ?? (process.env.DATABASE_URL ? 'pglite,postgres' : 'pglite')).split(',');
const RULES = {
  categories: ['recall' as const],
  types: ['checkup' as const],
  intervalMonths: 6,
  maxAttemptsPerWeek: 3,
  quietStart: '00:00',
  quietEnd: '00:00',
};
const DAY = [{ open: '00:00', close: '24:00' }];
const ALL_WEEK = { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY, sat: DAY, sun: DAY };

const summary = (xs: number[]) =>
  `p50 ${pct(xs, 50).toFixed(2)} ms, p95 ${pct(xs, 95).toFixed(2)} ms, p99 ${pct(xs, 99).toFixed(2)} ms, max ${Math.max(...xs).toFixed(2)} ms`;

/** This benchmark's clinic, seeded by SQL: `PATIENTS` patients, each with past and some future check-ups, and recall rules. */
async function seedRecalls(ctx: AppContext): Promise<{ clinicId: string; facilityId: string }> {
  const s = await seedClinic(ctx.db, 1, 0);
  const clinicId = s.clinicId;
  await sql`INSERT INTO patients (id, clinic_id, facility_id, first_name, last_name, phone)
      SELECT gen_random_uuid(), ${clinicId}, ${s.facilityId}, 'Paziente', 'N' || i, '+39333' || lpad(i::text, 7, '0')
      FROM generate_series(1, ${PATIENTS}) AS i`.execute(ctx.db);
  // A completed check-up 1-24 months ago for everyone; a future one for every fifth patient.
  await sql`INSERT INTO appointments (id, clinic_id, patient_id, facility_id, start_at, end_at, status, type, origin)
      SELECT gen_random_uuid(), clinic_id, id, facility_id, now() - make_interval(days => 30 + (abs(hashtext(id::text)) % 700)),
        now() - make_interval(days => 30 + (abs(hashtext(id::text)) % 700)) + interval '30 minutes', 'completed', 'checkup', 'manual'
      FROM patients WHERE clinic_id = ${clinicId}`.execute(ctx.db);
  await sql`INSERT INTO appointments (id, clinic_id, patient_id, facility_id, start_at, end_at, status, type, origin)
      SELECT gen_random_uuid(), clinic_id, id, facility_id, now() + make_interval(days => 5 + (abs(hashtext(id::text)) % 50)),
        now() + make_interval(days => 5 + (abs(hashtext(id::text)) % 50)) + interval '30 minutes', 'scheduled', 'checkup', 'manual'
      FROM patients WHERE clinic_id = ${clinicId} AND abs(hashtext(id::text)) % 5 = 0`.execute(ctx.db);
  await setRecallRules(ctx.db, clinicId, RULES);
  return { clinicId, facilityId: s.facilityId };
}

/** `--dataset`: its clinics to read (the biggest first), each with recall rules (this benchmark's where it has none, timed). */
async function datasetReaders(ctx: AppContext, url: string): Promise<Array<{ clinicId: string; facilityId: string; token: string; patients: number }>> {
  const clinics = await datasetClinics(url, readTokens(args.tokens), CLINICS);
  for (const c of clinics) {
    if (await getRecallRules(ctx.db, c.clinicId)) continue;
    const started = Date.now();
    await setRecallRules(ctx.db, c.clinicId, RULES);
    console.log(`  recall rules set on clinic ${c.clinicId} (${c.patients} patients), its worklist computed in ${Date.now() - started} ms`);
  }
  return clinics;
}

async function runEngine(engine: string): Promise<void> {
  const url = DATASET ? await datasetUrl(DATASET) : undefined;
  await withInProcessService(
    engine,
    'recalls',
    async (ctx, serve) => {
      const seedStart = Date.now();
      const readers = url ? await datasetReaders(ctx, url) : null;
      const s = readers ? readers[0]! : await seedRecalls(ctx);
      const clinicId = s.clinicId;

      // Two calendars of one doctor each for the cancellations; the second has a waitlist.
      const actor = await backOfficeActor(ctx.db, clinicId, actorEnvironment(ctx), 'bench-seed', SILENT_LOGGER);
      const calendar = async (name: string) => {
        const doctor = await createDoctor(ctx.db, clinicId, { firstName: 'Medico', lastName: name, facilityId: s.facilityId });
        return createCalendar(ctx.db, actor, {
          facilityId: s.facilityId,
          name,
          slotMinutes: 30,
          workingHours: ALL_WEEK,
          doctorIds: [doctor.id],
          horizonDays: 60,
        });
      };
      const [plain, waited] = [await calendar('Senza attesa'), await calendar('Con lista d’attesa')];
      const patients = (
        await ctx.db
          .selectFrom('patients')
          .select('id')
          .where('clinic_id', '=', clinicId)
          .limit(3 * CANCELS)
          .execute()
      ).map((p) => p.id);
      const booked: Record<'plain' | 'offer', string[]> = { plain: [], offer: [] };
      for (let i = 0; i < CANCELS; i++) {
        const start = new Date(Date.now() + (2 + Math.floor(i / 40)) * 86_400_000);
        start.setUTCHours(4, 0, 0, 0);
        start.setTime(start.getTime() + (i % 40) * 1_800_000);
        booked.plain.push((await bookAppointment(ctx.db, actor, { calendarId: plain.id, patientId: patients[i]!, start: start.toISOString() })).id);
        booked.offer.push((await bookAppointment(ctx.db, actor, { calendarId: waited.id, patientId: patients[CANCELS + i]!, start: start.toISOString() })).id);
        await createEntry(ctx.db, actor, {
          patientId: patients[2 * CANCELS + i]!,
          calendarId: waited.id,
          latest: new Date(Date.now() + 59 * 86_400_000).toISOString(),
          channel: 'phone',
        });
      }
      if (!readers) await sql`ANALYZE`.execute(ctx.db);
      const seedSeconds = (Date.now() - seedStart) / 1000;

      const key = readers
        ? { token: readers[0]!.token }
        : await createApiKey(ctx.db, clinicId, { name: 'bench', scopes: ['patients:read', 'patients:write', 'appointments:read', 'appointments:write'] });
      // A tenth of the reads to the biggest clinic, the others spread over the rest (a dataset's).
      const reader = () =>
        !readers || readers.length === 1 || Math.random() < 0.1 ? key.token : readers[1 + Math.floor(Math.random() * (readers.length - 1))]!.token;
      const base = `${await serve()}/v1`;
      for (let i = 0; i < 20; i++) await timedRequest(`${base}/recalls?limit=50`, reader());
      const reads: number[] = [];
      for (let i = 0; i < READS; i++) reads.push(await timedRequest(`${base}/recalls?limit=50`, reader()));
      const cancels: Record<'plain' | 'offer', number[]> = { plain: [], offer: [] };
      for (let i = 0; i < CANCELS; i++) {
        for (const kind of i % 2 ? (['plain', 'offer'] as const) : (['offer', 'plain'] as const))
          cancels[kind].push(await timedRequest(`${base}/appointments/${booked[kind][i]}/cancel`, key.token, {}));
      }
      const offers = await ctx.db
        .selectFrom('waitlist_offers')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('clinic_id', '=', clinicId)
        .where('calendar_id', '=', waited.id)
        .executeTakeFirstOrThrow();
      console.log(
        readers
          ? `\n${ctx.database.engine}: dataset ${DATASET}, ${readers.length} clinics read (the biggest of ${readers[0]!.patients} patients, a tenth of the reads); cancellations prepared in ${seedSeconds.toFixed(1)} s`
          : `\n${ctx.database.engine}: ${PATIENTS} patients, seeded in ${seedSeconds.toFixed(1)} s`,
      );
      console.log(`  GET /v1/recalls (first page of 50), ${READS} requests: ${summary(reads)}`);
      console.log(`  cancel, nobody waiting, ${CANCELS}: ${summary(cancels.plain)}`);
      console.log(`  cancel with an offer, ${CANCELS} (${offers.n} offers made): ${summary(cancels.offer)}`);
      console.log(
        `  added by the offer: p50 ${(pct(cancels.offer, 50) - pct(cancels.plain, 50)).toFixed(2)} ms, p99 ${(pct(cancels.offer, 99) - pct(cancels.plain, 99)).toFixed(2)} ms`,
      );
    },
    url,
  );
}

console.log(machine());
for (const engine of ENGINES) await runEngine(engine);

/**
 * Confirmation loop benchmark: `npm run bench:confirmations [-- options]`.
 *
 * On a clinic of `--patients=100000` patients with two years of history and a month of
 * appointments ahead (bench/lib/agenda-seed.ts), with confirmation rules (48 h before, and 18:00
 * the evening before) and open waitlist entries for every freed slot to be offered to:
 * - GET /v1/confirmations, the first page (50) due now, and the first page due within the month;
 * - a cancellation through an answer (POST /v1/appointments/{id}/confirmation-attempts,
 *   `cancel_requested`) against a plain cancellation (POST /v1/appointments/{id}/cancel), pairs
 *   alternated on distinct appointments more than a week ahead, both offering the freed slot.
 * `--reads=200` worklist requests each, `--cancels=200` of each cancellation; p50 / p95 / p99.
 * Targets: the worklist p99 under 50 ms; an answer's cancellation adds under 10 ms at p99.
 *
 * The service runs in this process (HTTP on 127.0.0.1, requests sequential).
 * `--engines=pglite,postgres` (postgres needs DATABASE_URL; a database of its own is created and dropped).
 */
import { sql } from 'kysely';
import { createApiKey } from '../src/modules/auth/index.js';
import { setConfirmationRules } from '../src/modules/confirmations/index.js';
import { seedAgendaClinic } from './lib/agenda-seed.js';
import { benchArgs, machine, percentile as pct } from './lib/harness.js';
import { timedRequest, withInProcessService } from './lib/in-process.js';

const args = benchArgs();
const PATIENTS = Number(args.patients ?? 100_000);
const READS = Number(args.reads ?? 200);
const CANCELS = Number(args.cancels ?? 200);
const ENGINES = (args.engines ?? (process.env.DATABASE_URL ? 'postgres,pglite' : 'pglite')).split(',');

const summary = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(2)} ms, p95 ${pct(xs, 95).toFixed(2)} ms, p99 ${pct(xs, 99).toFixed(2)} ms`;

async function runEngine(engine: string): Promise<void> {
  await withInProcessService(engine, 'confirmations', async (ctx, serve) => {
    const seedStart = Date.now();
    const { clinicId, facilityId, calendarId, counts } = await seedAgendaClinic(ctx.db, PATIENTS, 1.5);
    await setConfirmationRules(ctx.db, clinicId, {
      steps: [{ hoursBefore: 48 }, { daysBefore: 1, at: '18:00' }],
      calendarIds: [],
      categories: [],
      channels: ['phone', 'sms'],
      maxAttempts: 3,
      retryAfterMinutes: 120,
      quietStart: '21:00',
      quietEnd: '08:00',
    });
    // People waiting for any time of the month, so every freed slot is offered.
    await sql`INSERT INTO waitlist_entries (id, clinic_id, facility_id, calendar_id, patient_id, earliest, latest, channel, status)
      SELECT gen_random_uuid(), ${clinicId}, ${facilityId}, ${calendarId}, id, now(), now() + interval '40 days', 'phone', 'open'
      FROM patients WHERE clinic_id = ${clinicId} ORDER BY id LIMIT ${CANCELS * 4}`.execute(ctx.db);
    const ahead = await sql<{ id: string }>`SELECT id FROM appointments
      WHERE clinic_id = ${clinicId} AND status = 'scheduled' AND start_at > now() + interval '8 days' ORDER BY start_at LIMIT ${CANCELS * 2}`.execute(ctx.db);
    const waiting = await sql<{ n: number }>`SELECT count(*)::int AS n FROM appointments
      WHERE clinic_id = ${clinicId} AND status = 'scheduled' AND start_at > now()`.execute(ctx.db);
    const seedSeconds = (Date.now() - seedStart) / 1000;

    const key = await createApiKey(ctx.db, clinicId, { name: 'bench', scopes: ['appointments:read', 'appointments:write'] });
    const base = `${await serve()}/v1`;
    const monthAhead = encodeURIComponent(new Date(Date.now() + 31 * 86_400_000).toISOString());
    const now: number[] = [];
    const month: number[] = [];
    for (let i = 0; i < 5; i++) await timedRequest(`${base}/confirmations`, key.token);
    for (let i = 0; i < READS; i++) {
      now.push(await timedRequest(`${base}/confirmations`, key.token));
      month.push(await timedRequest(`${base}/confirmations?dueBefore=${monthAhead}`, key.token));
    }
    const plain: number[] = [];
    const answer: number[] = [];
    for (let i = 0; i + 1 < ahead.rows.length; i += 2) {
      const [a, b] = [ahead.rows[i]!.id, ahead.rows[i + 1]!.id];
      const viaAnswer = () =>
        timedRequest(`${base}/appointments/${b}/confirmation-attempts`, key.token, {
          channel: 'phone',
          outcome: 'cancel_requested',
          externalCallId: `bench-${b}`,
        });
      const viaCancel = () => timedRequest(`${base}/appointments/${a}/cancel`, key.token, {});
      // Alternate which goes first, so neither always meets a warmer cache.
      if (i % 4 === 0) {
        plain.push(await viaCancel());
        answer.push(await viaAnswer());
      } else {
        answer.push(await viaAnswer());
        plain.push(await viaCancel());
      }
    }
    const offers = await sql<{ n: number }>`SELECT count(*)::int AS n FROM waitlist_offers WHERE clinic_id = ${clinicId} AND status = 'offered'`.execute(
      ctx.db,
    );
    console.log(
      `\n${ctx.database.engine}: ${PATIENTS} patients, ${counts.appointments} appointments (${waiting.rows[0]!.n} scheduled ahead, waiting for their confirmation); seeded in ${seedSeconds.toFixed(1)} s`,
    );
    console.log(`  GET /v1/confirmations, due now, first page, ${READS} requests: ${summary(now)}`);
    console.log(`  GET /v1/confirmations, due within a month, first page, ${READS} requests: ${summary(month)}`);
    console.log(`  plain cancel, ${plain.length}: ${summary(plain)}`);
    console.log(`  cancel_requested answer, ${answer.length}: ${summary(answer)}`);
    console.log(
      `  answer minus plain: p50 ${(pct(answer, 50) - pct(plain, 50)).toFixed(2)} ms, p99 ${(pct(answer, 99) - pct(plain, 99)).toFixed(2)} ms; ${offers.rows[0]!.n} freed slots offered`,
    );
  });
}

console.log(machine());
for (const engine of ENGINES) await runEngine(engine);

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
 * The clinic is seeded by bench/lib/agenda-seed.ts. The service runs in this process (HTTP on 127.0.0.1, requests sequential). `--engines=pglite,postgres`
 * (postgres needs DATABASE_URL; a database of its own is created and dropped).
 */
import { createApiKey } from '../src/modules/auth/index.js';
import { benchArgs, machine, percentile as pct } from './lib/harness.js';
import { timedRequest, withInProcessService } from './lib/in-process.js';
import { seedAgendaClinic } from './lib/agenda-seed.js';

const args = benchArgs();
const PATIENTS = Number(args.patients ?? 100_000);
const PER_YEAR = Number(args['per-year'] ?? 1.5);
const READS = Number(args.reads ?? 100);
const ENGINES = (args.engines ?? (process.env.DATABASE_URL ? 'postgres,pglite' : 'pglite')).split(',');

const summary = (xs: number[]) =>
  `p50 ${pct(xs, 50).toFixed(2)} ms, p95 ${pct(xs, 95).toFixed(2)} ms, p99 ${pct(xs, 99).toFixed(2)} ms, max ${Math.max(...xs).toFixed(2)} ms`;

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

async function runEngine(engine: string): Promise<void> {
  await withInProcessService(engine, 'stats', async (ctx, serve) => {
    const seedStart = Date.now();
    const { clinicId, counts: c } = await seedAgendaClinic(ctx.db, PATIENTS, PER_YEAR);
    const seedSeconds = (Date.now() - seedStart) / 1000;
    const key = await createApiKey(ctx.db, clinicId, { name: 'bench', scopes: ['appointments:read'] });
    const url = `${await serve()}/v1/stats/agenda?from=${day(-364)}&to=${day(7)}`;
    for (let i = 0; i < 5; i++) await timedRequest(url, key.token);
    const reads: number[] = [];
    for (let i = 0; i < READS; i++) reads.push(await timedRequest(url, key.token));
    console.log(
      `\n${ctx.database.engine}: ${PATIENTS} patients, ${c.appointments} appointments over two years, ${c.offers} accepted offers, ${c.recallAttempts} recall attempts, ${c.events} events; seeded in ${seedSeconds.toFixed(1)} s`,
    );
    console.log(`  GET /v1/stats/agenda, 371 days (54 weeks), ${READS} requests: ${summary(reads)}`);
  });
}

console.log(machine());
for (const engine of ENGINES) await runEngine(engine);

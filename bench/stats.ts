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
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { buildApp } from '../src/app.js';
import { closeContext, createContext } from '../src/bootstrap.js';
import { testConfig } from '../src/config.js';
import { createApiKey } from '../src/modules/auth/index.js';
import { BENCH_LIMITS } from './lib/constants.js';
import { benchArgs, dedicatedDatabase, machine, percentile as pct } from './lib/harness.js';
import { seedAgendaClinic } from './lib/agenda-seed.js';

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
    const { clinicId, counts } = await seedAgendaClinic(ctx.db, PATIENTS, PER_YEAR);
    const seedSeconds = (Date.now() - seedStart) / 1000;

    const key = await createApiKey(ctx.db, clinicId, { name: 'bench', scopes: ['appointments:read'] });
    const app = await buildApp({ ctx, rateLimits: BENCH_LIMITS, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/v1/stats/agenda?from=${day(-364)}&to=${day(7)}`;
    try {
      for (let i = 0; i < 5; i++) await timed(url, key.token);
      const reads: number[] = [];
      for (let i = 0; i < READS; i++) reads.push(await timed(url, key.token));
      const c = counts;
      console.log(
        `\n${ctx.database.engine}: ${PATIENTS} patients, ${c.appointments} appointments over two years, ${c.offers} accepted offers, ${c.recallAttempts} recall attempts, ${c.events} events; seeded in ${seedSeconds.toFixed(1)} s`,
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

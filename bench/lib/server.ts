/**
 * The server side of the benchmarks, run as its own process so the load generator does not
 * share its event loop: opens the database (DATABASE_URL, or the embedded one in a fresh
 * temporary folder), applies migrations, seeds (BENCH_ROWS), builds the real app with the
 * ceiling route and listens on a random loopback port. Prints one JSON line `{"ready": …}`
 * on stdout, then serves until SIGTERM.
 *
 * Rate limits are raised far above the spec's (60 per 10 s per key): the benchmark measures
 * the service, not the limiter's refusals. The limiter still runs on every request.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../src/app.js';
import { createContext } from '../../src/bootstrap.js';
import { testConfig } from '../../src/config.js';
import type { RateLimits } from '../../src/http/rate-limit/limiter.js';
import { CEILING_PATH } from './constants.js';
import { seedClinic } from './seed.js';

export const BENCH_LIMITS: RateLimits = {
  clinicPer10s: 1_000_000_000,
  clinicPerDay: 1_000_000_000,
  keyPer10s: 1_000_000_000,
  keyPerDay: 1_000_000_000,
  authFailuresPerMinute: 1_000_000_000,
};


async function main(): Promise<void> {
  const rows = Number(process.env.BENCH_ROWS ?? 100_000);
  const databaseUrl = process.env.DATABASE_URL || null;
  const dataDir = databaseUrl ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'dcm-bench-'));
  const config = testConfig({ databaseUrl, dataDir: dataDir ?? './data', dbPoolMax: Number(process.env.DB_POOL_MAX ?? 10), logLevel: 'silent' });
  const ctx = await createContext(config);
  const seedStart = Date.now();
  const seeded = await seedClinic(ctx.db, rows, Number(process.env.BENCH_KEYS ?? 4));
  const seedSeconds = (Date.now() - seedStart) / 1000;

  let ceilingBody = '{}';
  const app = await buildApp({
    ctx,
    rateLimits: BENCH_LIMITS,
    logger: false,
    extraRoutes: (v1) => {
      v1.get(CEILING_PATH, { schema: { hide: true } }, async (_request, reply) => reply.type('application/json; charset=utf-8').send(ceilingBody));
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const facility = await fetch(`http://127.0.0.1:${port}/v1/facilities/${seeded.facilityId}`, { headers: { authorization: `Bearer ${seeded.tokens[0]}` } });
  if (facility.status !== 200) throw new Error(`GET /facilities/{id} answered ${facility.status}: ${await facility.text()}`);
  ceilingBody = await facility.text();

  process.stdout.write(`${JSON.stringify({ ready: { port, engine: ctx.database.engine, seeded, rows, seedSeconds } })}\n`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await app.close();
    await ctx.database.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

/**
 * Plans benchmark: `npm run bench:plans [-- options]`.
 *
 * Prints `EXPLAIN (ANALYZE, BUFFERS)` of every hot statement the service issues: each step of a
 * voice call (caller context, search, availability, hold, booking, reschedule, cancel, the call's
 * record), the lists (appointments, tasks, events, deliveries, recalls, waitlist, calendars,
 * doctors, the back office's events and access log) and the jobs (each periodic job once, the
 * delivery worker's claim), captured while the real HTTP routes run (bench/lib/plans-drive.ts),
 * each explained with the parameters it ran with. Then flags every sequential scan of a tenant
 * table (one with a `clinic_id` column) and every scan whose index condition does not hold it to
 * one clinic (it reads other clinics' rows: their number, removed by the filter, is shown), apart
 * from the statements that read across clinics by design (the jobs; bench/lib/plans.ts lists
 * them with why). test/db/plans.test.ts is the gate in CI; this shows the plans at a size.
 *
 * `--dataset=<postgres url | database name next to DATABASE_URL's | PGlite data folder>`: an
 * existing database (migrations are applied to it; the run adds a key, a webhook destination, an
 * appointment booked, moved and cancelled, a call, a lead, a task, a waitlist entry to its
 * biggest clinic; and every periodic job runs once on it, as in service: their retention drops
 * a seed:scale database's events past 30 days, old deliveries and access-log months, so the next
 * benchmark on it finds fewer rows than were seeded: on a medium one, 2,500,001 access-log rows
 * became 1,314,010, 507,135 events 77,228, 47,910 deliveries 12,677). Default: a new database (PostgreSQL next
 * to DATABASE_URL when set, else PGlite in a temporary folder), seeded with `--clinics=20` clinics, the first with `--big=20000`
 * patients and as many past appointments, the others `--small=500` (bench/lib/seed.ts), dropped
 * at the end. `--plans=0` prints only the flags. `--seqscan=off` explains under
 * `enable_seqscan = off`, as the test does (on a small dataset PostgreSQL rightly reads a small
 * table whole: a flag there is worth reading, not always a fault; the rows each flagged scan read
 * and threw away are printed). Exits 1 when a call of the drive failed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { closeContext, createContext } from '../src/bootstrap.js';
import { testConfig } from '../src/config.js';
import { BENCH_LIMITS } from './lib/constants.js';
import { datasetLocation, datasetUrl } from './lib/dataset.js';
import { benchArgs, dedicatedDatabase, machine } from './lib/harness.js';
import { drivePlans, planTarget } from './lib/plans-drive.js';
import { explainAll, report, StatementCapture } from './lib/plans.js';
import { seedClinic } from './lib/seed.js';

const args = benchArgs();
const CLINICS = Number(args.clinics ?? 20);
const BIG = Number(args.big ?? 20_000);
const SMALL = Number(args.small ?? 500);
const ADMIN_TOKEN = 'bench-plans-admin-token-0123456789';

/** Where the dataset is: a PostgreSQL URL or a PGlite folder, and what to remove at the end. */
async function dataset(): Promise<{ databaseUrl: string | null; dataDir: string | null; seed: boolean; cleanUp: () => Promise<void> }> {
  const given = args.dataset;
  if (given) {
    const where = datasetLocation(given, process.env.DATABASE_URL, true);
    // A database named is checked to exist first, for a clearer message than the driver's.
    if (where.databaseUrl) await datasetUrl(given, process.env.DATABASE_URL, false);
    return { ...where, seed: false, cleanUp: async () => {} };
  }
  if (process.env.DATABASE_URL) {
    const db = await dedicatedDatabase(process.env.DATABASE_URL, 'dcm_bench_plans');
    return { databaseUrl: db.url, dataDir: null, seed: true, cleanUp: db.drop };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcm-bench-plans-'));
  return { databaseUrl: null, dataDir: dir, seed: true, cleanUp: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

async function main(): Promise<void> {
  const where = await dataset();
  const capture = new StatementCapture();
  const config = testConfig({
    databaseUrl: where.databaseUrl,
    dataDir: where.dataDir ?? './data',
    adminToken: ADMIN_TOKEN,
    webhookAllowInsecure: true,
    port: 0,
  });
  const ctx = await createContext(config, { onQuery: capture.watcher });
  try {
    if (where.seed) {
      const started = Date.now();
      for (let c = 0; c < CLINICS; c++) await seedClinic(ctx.db, c === 0 ? BIG : SMALL, 0);
      console.log(`seeded ${CLINICS} clinics (${BIG} patients in the first, ${SMALL} in the others) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    await sql`ANALYZE`.execute(ctx.db);
    const app = await buildApp({ ctx, rateLimits: BENCH_LIMITS, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const target = await planTarget(ctx.db);
      const port = (app.server.address() as { port: number }).port;
      const failures = await drivePlans(ctx, { base: `http://127.0.0.1:${port}`, adminToken: ADMIN_TOKEN }, target, capture);
      for (const f of failures) console.log(`CALL FAILED ${f}`);
      const explained = await explainAll(ctx.db, capture.statements(), { analyze: true, seqscanOff: args.seqscan === 'off', withText: args.plans !== '0' });
      console.log(`${machine()}\nengine: ${ctx.database.engine}; clinic ${target.clinicId}\n`);
      console.log(report(explained, args.plans !== '0').join('\n'));
      process.exitCode = failures.length > 0 ? 1 : 0;
    } finally {
      await app.close();
    }
  } finally {
    await closeContext(ctx);
    await where.cleanUp();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

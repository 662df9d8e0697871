/**
 * `npm run bench:pgbench`: what PostgreSQL itself serves on this machine. The
 * statements of POST /patients, POST /leads, a booking and the uncached list page
 * (bench/pgbench/*.sql, each file says which code it mirrors) run in `pgbench` against a
 * database seeded like bench:api's (one clinic of BENCH_ROWS patients and appointments), one
 * transaction per request, sent as the server sends them: prepared (`-M prepared`) where the
 * server prepares every statement of the script (src/db/prepared-statements.ts), unnamed
 * (`-M extended`) where it prepares none. A booking runs both ways: the server prepares
 * both of its statements (the read of busy time is in the insert's), the unnamed run shows what
 * planning them would cost. pgbench is a C
 * client that does nothing between statements: its transactions per second are the limit a
 * route that runs those statements can reach here, and bench:api's req/s divided by them is
 * the route's ratio to the database's speed.
 *
 * Needs DATABASE_URL (a database of its own is created and dropped) and `pgbench` on PATH.
 * Environment: BENCH_SECONDS (10), BENCH_CONNECTIONS (10,50: pgbench clients), BENCH_ROWS
 * (100000), BENCH_ONLY (script names: patients,leads,booking,list).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { dedicatedDatabase, fmt, machine, ROOT } from './lib/harness.js';
import { seedClinic } from './lib/seed.js';
import { CORES, cpuPerRequest, sampleCpu } from './lib/cpu.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CLIENTS = (process.env.BENCH_CONNECTIONS ?? '10,50').split(',').map((c) => Number(c.trim()));
const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const SCRIPTS = (process.env.BENCH_ONLY ?? 'patients,leads,booking,list').split(',').map((s) => s.trim());
/** How the server sends each script's statements (the header comment). */
const MODES: Record<string, Array<'prepared' | 'extended'>> = {
  patients: ['prepared'],
  leads: ['prepared'],
  booking: ['extended', 'prepared'],
  list: ['extended'],
};

/**
 * The server runs a marked statement unnamed its first DB_PREPARE_AFTER (1,000) times, so that
 * PostgreSQL does not keep a plan made on an empty table (src/db/prepared-statements.ts); before
 * a script's first prepared run, as many of its transactions run unnamed. Without it the leads'
 * first prepared run, on an empty table, kept such a plan: 606 transactions/s at 3.0 ms of
 * PostgreSQL CPU each, against 2,661 at 0.69 in the next run (new connections, a fuller table).
 */
async function warmUnnamed(url: string, script: string, vars: Record<string, string>) {
  const args = ['-n', '-M', 'extended', '-c', '10', '-j', '2', '-t', '100', '-f', path.join(ROOT, 'bench/pgbench', `${script}.sql`)];
  for (const [k, v] of Object.entries(vars)) args.push('-D', `${k}=${v}`);
  await promisify(execFile)('pgbench', [...args, url], { maxBuffer: 1 << 24 });
}

async function pgbench(url: string, script: string, mode: string, clients: number, vars: Record<string, string>) {
  const args = ['-n', '-M', mode, '-c', String(clients), '-j', '2', '-T', String(SECONDS), '-f', path.join(ROOT, 'bench/pgbench', `${script}.sql`)];
  for (const [k, v] of Object.entries(vars)) args.push('-D', `${k}=${v}`);
  const before = sampleCpu(null);
  const { stdout } = await promisify(execFile)('pgbench', [...args, url], { maxBuffer: 1 << 24 });
  const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(stdout)?.[1]);
  const latency = Number(/latency average = ([\d.]+) ms/.exec(stdout)?.[1]);
  const failed = Number(/number of failed transactions: (\d+)/.exec(stdout)?.[1] ?? 0);
  const processed = Number(/number of transactions actually processed: (\d+)/.exec(stdout)?.[1] ?? 0);
  // pgbench itself is in the rest: this process only waits for it.
  const cpu = cpuPerRequest(before, sampleCpu(null), processed);
  return { tps, latency, failed, cpu };
}

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) throw new Error('bench:pgbench needs DATABASE_URL');
  console.log('# bench:pgbench');
  console.log(machine());
  const database = await dedicatedDatabase(process.env.DATABASE_URL, 'dcm_pgbench');
  const db = await openDatabase({ databaseUrl: database.url, dataDir: null });
  try {
    await migrate(db);
    const seeded = await seedClinic(db.db, ROWS, 1);
    const resources = '00000000-0000-4000-8000-000000000001';
    await sql`INSERT INTO access_log_resources (id, clinic_id, resource_type, resource_ids) VALUES (${resources}, ${seeded.clinicId}, 'appointment', '{}')`.execute(
      db.db,
    );
    const vars = {
      clinic: seeded.clinicId,
      facility: seeded.facilityId,
      patient: seeded.patientId,
      calendar: seeded.calendarId,
      resources,
    };
    console.log(`\none clinic of ${fmt(ROWS)} patients and appointments; pgbench -j 2, ${SECONDS} s per run\n`);
    console.log(
      `PostgreSQL CPU ms/tx: every process named postgres, per transaction; cores busy: the share of all ${CORES} cores; the limit it sets: ${CORES} cores divided by that CPU, the transactions/s the cores could serve if nothing else ran (no server, no client)\n`,
    );
    console.log(
      '| statements of | sent (pgbench -M) | clients | transactions/s | latency average ms | failed | events recorded | PostgreSQL CPU ms/tx | pgbench and the rest ms/tx | cores busy | the limit it sets /s |',
    );
    console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    const events = async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM events`.execute(db.db)).rows[0]!.n);
    let run = 0;
    for (const script of SCRIPTS) {
      for (const mode of MODES[script] ?? ['extended']) {
        if (mode === 'prepared') await warmUnnamed(database.url, script, { ...vars, run: String(++run), n: '0' });
        for (const clients of CLIENTS) {
          const before = await events();
          // `run` and `n` place each booking on a slot of its own (bench/pgbench/booking.sql).
          const r = await pgbench(database.url, script, mode, clients, { ...vars, run: String(++run), n: '0' });
          // record_event answers `error: …` rather than failing: the count shows the events were stored.
          const cpu = r.cpu
            ? [fmt(r.cpu.postgresMs, 2), fmt(r.cpu.otherMs + r.cpu.loadMs, 2), `${fmt(r.cpu.busyPct)}%`, fmt((CORES * 1000) / r.cpu.postgresMs)]
            : ['n/a', 'n/a', 'n/a', 'n/a'];
          console.log(
            `| ${script} | ${mode} | ${clients} | ${fmt(r.tps)} | ${fmt(r.latency, 1)} | ${r.failed} | ${fmt((await events()) - before)} | ${cpu.join(' | ')} |`,
          );
        }
      }
    }
  } finally {
    await db.close();
    await database.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

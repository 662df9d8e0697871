/**
 * npm run bench:webhooks: the delivery engine against a local receiver.
 *
 * Database: PostgreSQL when DATABASE_URL is set (a fresh database is created on that server
 * and dropped at the end), the embedded PGlite otherwise. The worker runs in this process with
 * its own connection pool on PostgreSQL (memory figures are this process's, receiver included).
 *
 * 1. deliveries per second, 1 clinic and 100 clinics (backlog drained, receiver answers at once);
 * 2. event-to-first-attempt p50/p99 at 200 and 500 events/s (from before the event's
 *    transaction starts to the receiver reading the request), after a warm-up second at
 *    200/s that is printed but not counted; also the event transactions' own p50/p99 and
 *    the CPU each process used;
 * 3. fairness: one clinic with a 10,000-event backlog while 99 clinics record 10 each: the
 *    small clinics' p95 time to first attempt, and the largest number of one clinic's
 *    requests ever open at the receiver at once (receiver answers after 10 ms here).
 *
 * Options (env): BENCH_SCALE (default 1) multiplies the sizes; BENCH_SECONDS (default 10) per rate;
 * BENCH_PARTS (default `throughput,latency,fairness`) picks the parts; BENCH_RATES (default
 * `200,500`) the event rates of part 2, e.g. `2000`.
 *
 * `--dataset=<postgres url | database name next to DATABASE_URL's>`: no seed nor new clinics; the
 * emitter and the worker open that database as it is (migrations already applied; kept at the
 * end), e.g. one `npm run seed:scale -- --database=NAME` made, whose rows (events, deliveries of
 * its own destinations) the worker's claims then read past. Up to 100 of its clinics get a
 * destination at the local receiver for `task.created`, made at the start with the clinic's
 * first live key and deleted (deleted_at) at the end: the biggest clinic by patients first, then
 * others drawn at random. Each part takes them in place of new clinics (1 clinic: the biggest;
 * 100 clinics: as many as there are; fairness: the backlog in the biggest, 10 events each in the
 * others); the events the parts record stay in the dataset. The worker process of the latency
 * part runs the delivery worker alone (bench/lib/delivery-worker.ts), not `--role=worker`, whose
 * periodic jobs would apply the service's retention to the dataset. No `--tokens`: nothing calls
 * the API.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { closeContext, createContext } from '../src/bootstrap.js';
import { addDestinations, datasetClinics, datasetUrl, dropDestinations } from './lib/dataset.js';
import { benchArgs, dedicatedDatabase } from './lib/harness.js';
import { testConfig } from '../src/config.js';
import type { AppContext } from '../src/context.js';
import { recordEvent } from '../src/events/record.js';
import { sampleData } from '../src/event-schemas.js';
import type { Running } from '../src/jobs/scheduler.js';
import { createApiKey, SCOPES } from '../src/modules/auth/index.js';
import { createClinic } from '../src/modules/clinics/index.js';
import { createFacility } from '../src/modules/facilities/index.js';
import { generateSecret, startDeliveryWorker } from '../src/modules/webhooks/index.js';

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PARTS = new Set((process.env.BENCH_PARTS ?? 'throughput,latency,fairness').split(','));
const RATES = (process.env.BENCH_RATES ?? '200,500').split(',').map(Number);
if (RATES.some((r) => !(r > 0))) throw new Error('BENCH_RATES: events per second, e.g. 200,500');
const DATASET = benchArgs().dataset;
/** `--dataset`: its clinics with a destination at the receiver, the biggest first (addDestinations). */
let datasetPool: Clinic[] | null = null;

interface Arrival {
  at: number;
}

class Receiver {
  server!: http.Server;
  url = '';
  firstArrival = new Map<string, number>();
  requests = 0;
  delayMs = 0;
  open = new Map<string, number>();
  maxOpen = new Map<string, number>();
  onArrival: ((eventId: string, a: Arrival) => void) | null = null;

  async start() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = performance.now() + performance.timeOrigin;
        this.requests++;
        const path = req.url ?? '/';
        const n = (this.open.get(path) ?? 0) + 1;
        this.open.set(path, n);
        if (n > (this.maxOpen.get(path) ?? 0)) this.maxOpen.set(path, n);
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { eventId: string };
        if (!this.firstArrival.has(body.eventId)) {
          this.firstArrival.set(body.eventId, at);
          this.onArrival?.(body.eventId, { at });
        }
        const finish = () => {
          this.open.set(path, (this.open.get(path) ?? 1) - 1);
          res.statusCode = 200;
          res.end();
        };
        if (this.delayMs > 0) setTimeout(finish, this.delayMs);
        else finish();
      });
    });
    this.server.keepAliveTimeout = 10_000;
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  reset() {
    this.firstArrival.clear();
    this.requests = 0;
    this.open.clear();
    this.maxOpen.clear();
    this.onArrival = null;
  }
  close() {
    this.server.closeAllConnections();
    return new Promise<void>((r) => this.server.close(() => r()));
  }
}

let workerCtx: AppContext;
const now = () => performance.now() + performance.timeOrigin;
const pct = (values: number[], p: number) => {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');

interface Clinic {
  id: string;
  facilityId: string;
  path: string;
  /** The destination this run made in a dataset's clinic. */
  endpointId?: string;
}

async function makeClinics(ctx: AppContext, receiver: Receiver, n: number, tag: string): Promise<Clinic[]> {
  const out: Clinic[] = [];
  for (let i = 0; i < n; i++) {
    const c = await createClinic(ctx.db, { name: `Bench ${tag} ${i}` });
    const f = await createFacility(ctx.db, { clinicId: c.id, region: 'IT' }, { name: 'Sede' });
    const key = await createApiKey(ctx.db, c.id, { name: 'bench', scopes: [...SCOPES] });
    const path = `/${tag}/${i}`;
    await ctx.db
      .insertInto('webhook_endpoints')
      .values({ id: randomUUID(), clinic_id: c.id, api_key_id: key.id, url: receiver.url + path, events: ['task.created'], secret: generateSecret() })
      .execute();
    out.push({ id: c.id, facilityId: f.id, path });
  }
  return out;
}

/** `n` clinics with a destination at the receiver: new ones, or (`--dataset`) the dataset's, from the `skip`-th. */
async function clinicsFor(ctx: AppContext, receiver: Receiver, n: number, tag: string, skip = 0): Promise<Clinic[]> {
  return datasetPool ? datasetPool.slice(skip, skip + n) : makeClinics(ctx, receiver, n, tag);
}

async function backlog(ctx: AppContext, clinic: Clinic, count: number): Promise<string[]> {
  const ids: string[] = [];
  const BATCH = 500;
  for (let done = 0; done < count; done += BATCH) {
    await ctx.db.transaction().execute(async (trx) => {
      for (let i = done; i < Math.min(count, done + BATCH); i++) {
        ids.push(
          (
            await recordEvent(trx, {
              clinicId: clinic.id,
              type: 'task.created',
              facilityId: clinic.facilityId,
              data: sampleData('task.created', clinic.facilityId),
            })
          ).id,
        );
      }
    });
  }
  return ids;
}

async function waitAll(receiver: Receiver, ids: Iterable<string>, timeoutMs: number): Promise<boolean> {
  const list = [...ids];
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    if (list.every((id) => receiver.firstArrival.has(id))) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}

async function throughput(ctx: AppContext, receiver: Receiver, clinics: number, perClinic: number) {
  receiver.reset();
  const cs = await clinicsFor(ctx, receiver, clinics, `tp${clinics}`);
  const ids: string[] = [];
  for (const c of cs) ids.push(...(await backlog(ctx, c, perClinic)));
  const worker = await startDeliveryWorker(workerCtx);
  const start = now();
  const ok = await waitAll(receiver, ids, 600_000);
  const seconds = (now() - start) / 1000;
  await worker.stop();
  return { clinics: cs.length, deliveries: ids.length, seconds, perSecond: ids.length / seconds, complete: ok };
}

async function latency(ctx: AppContext, receiver: Receiver, clinics: Clinic[], rate: number, seconds = SECONDS) {
  receiver.reset();
  const started = new Map<string, number>();
  const latencies: number[] = [];
  const commits: number[] = []; // start of the event's transaction to its commit being acknowledged
  receiver.onArrival = (eventId, a) => {
    const s = started.get(eventId);
    if (s !== undefined) latencies.push(a.at - s);
  };
  const early: Array<[string, number]> = [];
  const total = Math.round(rate * seconds);
  const tickMs = 10;
  const perTick = rate / (1000 / tickMs);
  let sent = 0;
  let carry = 0;
  const inFlight = new Set<Promise<unknown>>();
  const begin = Date.now();
  while (sent < total) {
    carry += perTick;
    while (carry >= 1 && sent < total) {
      carry -= 1;
      const clinic = clinics[sent % clinics.length]!;
      sent++;
      const t0 = now();
      const p = ctx.db
        .transaction()
        .execute((trx) =>
          recordEvent(trx, {
            clinicId: clinic.id,
            type: 'task.created',
            facilityId: clinic.facilityId,
            data: sampleData('task.created', clinic.facilityId),
          }),
        )
        .then((e) => {
          commits.push(now() - t0);
          const arrived = receiver.firstArrival.get(e.id);
          if (arrived !== undefined) early.push([e.id, arrived - t0]);
          started.set(e.id, t0);
        })
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    const next = begin + (sent / rate) * 1000;
    await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
  }
  await Promise.all(inFlight);
  for (const [, l] of early) latencies.push(l);
  const achieved = total / ((Date.now() - begin) / 1000);
  await waitAll(receiver, started.keys(), 60_000);
  return {
    rate,
    achieved,
    events: total,
    received: latencies.length,
    p50: pct(latencies, 50),
    p99: pct(latencies, 99),
    max: pct(latencies, 100),
    commitP50: pct(commits, 50),
    commitP99: pct(commits, 99),
  };
}

async function fairness(ctx: AppContext, receiver: Receiver) {
  receiver.reset();
  receiver.delayMs = 10;
  const [big] = await clinicsFor(ctx, receiver, 1, 'big');
  const small = await clinicsFor(ctx, receiver, 99, 'small', 1);
  const bigIds = await backlog(ctx, big!, Math.round(10_000 * SCALE));
  const worker = await startDeliveryWorker(workerCtx);
  await new Promise((r) => setTimeout(r, 500)); // the backlog is being served
  const started = new Map<string, number>();
  const smallLatencies: number[] = [];
  receiver.onArrival = (eventId, a) => {
    const s = started.get(eventId);
    if (s !== undefined) smallLatencies.push(a.at - s);
  };
  await Promise.all(
    small.map(async (c) => {
      for (let i = 0; i < 10; i++) {
        const t0 = now();
        const e = await ctx.db
          .transaction()
          .execute((trx) =>
            recordEvent(trx, { clinicId: c.id, type: 'task.created', facilityId: c.facilityId, data: sampleData('task.created', c.facilityId) }),
          );
        const arrived = receiver.firstArrival.get(e.id);
        if (arrived !== undefined) smallLatencies.push(arrived - t0);
        else started.set(e.id, t0);
      }
    }),
  );
  await waitAll(receiver, started.keys(), 120_000);
  const bigServedWhenSmallDone = bigIds.filter((id) => receiver.firstArrival.has(id)).length;
  const bigDone = await waitAll(receiver, bigIds, 600_000);
  await worker.stop();
  receiver.delayMs = 0;
  return {
    smallClinics: small.length,
    smallEvents: smallLatencies.length,
    smallP50: pct(smallLatencies, 50),
    smallP95: pct(smallLatencies, 95),
    bigBacklog: bigIds.length,
    bigServedWhenSmallDone,
    bigComplete: bigDone,
    maxInFlightOneClinic: Math.max(...receiver.maxOpen.values()),
    maxInFlightBigClinic: receiver.maxOpen.get(big!.path) ?? 0,
  };
}

/** Names the connections (pg_stat_activity.application_name) so their PostgreSQL CPU can be told apart. */
function withAppName(databaseUrl: string, name: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.set('application_name', name);
  return url.toString();
}

function spawnWorker(databaseUrl: string): ChildProcess {
  // BENCH_CPU_PROF=<dir>: CPU profiles of the worker process (and of this one, run with --cpu-prof yourself).
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // A dataset gets the delivery worker alone: the worker role's periodic jobs would prune it (bench/lib/delivery-worker.ts).
  const script = DATASET ? ['bench/lib/delivery-worker.ts'] : ['src/main.ts', '--role=worker'];
  return spawn(process.execPath, [...prof, '--import', 'tsx', ...script], {
    env: { ...process.env, DATABASE_URL: withAppName(databaseUrl, 'bench-worker'), WEBHOOK_ALLOW_INSECURE: 'true', SEED_DEMO: 'false', LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** CPU seconds (user + system) used so far by a process, from /proc (Linux). */
function cpuSeconds(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100/s)
  } catch {
    return 0;
  }
}

/**
 * CPU seconds used so far by each PostgreSQL process working for this benchmark: the backends
 * connected to its database and the server's background processes (WAL writer, checkpointer...,
 * which other databases on the server share).
 */
async function postgresCpu(ctx: AppContext): Promise<Map<number, { app: string; cpu: number }>> {
  if (ctx.database.engine !== 'postgres') return new Map();
  const { rows } = await sql<{ pid: number; app: string }>`
    SELECT pid, CASE WHEN datname IS NULL THEN 'server' WHEN application_name = 'bench-worker' THEN 'worker' ELSE 'emitter' END AS app
    FROM pg_stat_activity WHERE datname = current_database() OR datname IS NULL`.execute(ctx.db);
  return new Map(rows.map((r) => [r.pid, { app: r.app, cpu: cpuSeconds(r.pid) }]));
}

/** CPU seconds between two snapshots by kind of connection (a process that appeared in between counts in full). */
function cpuBetween(before: Map<number, { cpu: number }>, after: Map<number, { app: string; cpu: number }>): Record<string, number> {
  const sums: Record<string, number> = { emitter: 0, worker: 0, server: 0 };
  for (const [pid, { app, cpu }] of after) sums[app] = (sums[app] ?? 0) + cpu - (before.get(pid)?.cpu ?? 0);
  return sums;
}

function childRss(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

async function main() {
  let databaseUrl: string | null = null;
  let dropDb: (() => Promise<void>) | null = null;
  if (DATASET) databaseUrl = await datasetUrl(DATASET);
  else if (process.env.DATABASE_URL) {
    const database = await dedicatedDatabase(process.env.DATABASE_URL, 'whbench');
    databaseUrl = database.url;
    dropDb = database.drop;
  }
  const config = testConfig({ databaseUrl, webhookAllowInsecure: true, dbPoolMax: 20 });
  const ctx = await createContext(config, { inMemory: true, skipMigrations: !!DATASET });
  // On PostgreSQL the worker has its own connection pool, as a separate worker process would:
  // the emitter's transactions must not queue in front of the worker's claims.
  workerCtx = ctx.database.engine === 'postgres' ? await createContext(config, { skipMigrations: true }) : ctx;
  const receiver = new Receiver();
  await receiver.start();
  const engine = ctx.database.engine;
  console.log(`# webhooks benchmark: ${engine}, node ${process.version}, scale ${SCALE}${DATASET ? `, dataset ${DATASET}` : ''}`);
  try {
    if (DATASET) {
      const clinics = await datasetClinics(databaseUrl!, null, 100);
      const endpoints = await addDestinations(ctx.db, clinics, (i) => `${receiver.url}/dataset/${i}`, ['task.created']);
      datasetPool = endpoints.map((e, i) => ({ id: e.clinicId, facilityId: clinics[i]!.facilityId, path: `/dataset/${i}`, endpointId: e.endpointId }));
      console.log(`dataset: ${datasetPool.length} of its clinics with a destination at the receiver for this run`);
    }
    if (PARTS.has('throughput')) {
      const one = await throughput(ctx, receiver, 1, Math.round(2000 * SCALE));
      console.log(
        `throughput, 1 clinic:    ${one.deliveries} deliveries in ${one.seconds.toFixed(2)} s = ${one.perSecond.toFixed(0)}/s${one.complete ? '' : ' (INCOMPLETE)'}`,
      );
      const hundred = await throughput(ctx, receiver, 100, Math.round(50 * SCALE));
      console.log(
        `throughput, ${hundred.clinics} clinics: ${hundred.deliveries} deliveries in ${hundred.seconds.toFixed(2)} s = ${hundred.perSecond.toFixed(0)}/s${hundred.complete ? '' : ' (INCOMPLETE)'}`,
      );
    }
    if (PARTS.has('latency')) {
      const latClinics = await clinicsFor(ctx, receiver, 100, 'lat');
      // On PostgreSQL the worker is a real separate process (`--role=worker`), so its memory is
      // its own; on PGlite it runs in this process (the embedded database is single-process).
      const child = databaseUrl ? spawnWorker(databaseUrl) : null;
      const worker: Running | null = child ? null : await startDeliveryWorker(workerCtx);
      if (child) await new Promise((r) => setTimeout(r, 4000)); // let it start and LISTEN
      let rssPeak = 0;
      const sampler = setInterval(() => {
        rssPeak = Math.max(rssPeak, child ? childRss(child.pid!) : process.memoryUsage().rss);
      }, 100);
      // Warm-up, not counted: the emitter's pool opens its connections and both processes'
      // code gets compiled (about the first half second, which would otherwise make up 5% of
      // the 200/s run and so decide its p99). Printed all the same.
      const warm = await latency(ctx, receiver, latClinics, 200, 1);
      console.log(`warm-up (not counted): 1 s at 200/s: p50 ${fmt(warm.p50)} ms, p99 ${fmt(warm.p99)} ms`);
      for (const rate of RATES) {
        // CPU used during the run, per process: on a shared 2-core machine this tells which one is short of it.
        const cpu0 = { self: process.cpuUsage(), worker: child ? cpuSeconds(child.pid!) : 0, pg: await postgresCpu(ctx), t: now() };
        const l = await latency(ctx, receiver, latClinics, rate);
        const wall = (now() - cpu0.t) / 1000;
        const pgCpu = cpuBetween(cpu0.pg, await postgresCpu(ctx));
        const selfCpu = process.cpuUsage(cpu0.self);
        const share = (s: number) => `${((100 * s) / wall).toFixed(0)}%`;
        console.log(
          `event-to-first-attempt at ${rate}/s (achieved ${l.achieved.toFixed(0)}/s, ${l.events} events over ${latClinics.length} clinics): p50 ${fmt(l.p50)} ms, p99 ${fmt(l.p99)} ms, max ${fmt(l.max)} ms` +
            ` (event's transaction alone: p50 ${fmt(l.commitP50)} ms, p99 ${fmt(l.commitP99)} ms)` +
            ` [cpu of one core: emitter+receiver ${share((selfCpu.user + selfCpu.system) / 1e6)}` +
            (child ? `, worker ${share(cpuSeconds(child.pid!) - cpu0.worker)}` : '') +
            (cpu0.pg.size
              ? `, postgres for the emitter ${share(pgCpu.emitter!)}, for the worker ${share(pgCpu.worker!)}, background ${share(pgCpu.server!)}`
              : '') +
            ']',
        );
      }
      clearInterval(sampler);
      if (child) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      await worker?.stop();
      console.log(
        child
          ? `worker process memory during the latency runs: peak RSS ${(rssPeak / 1048576).toFixed(0)} MB`
          : `memory during the latency runs (this process: worker, emitter and receiver): peak RSS ${(rssPeak / 1048576).toFixed(0)} MB`,
      );
    }
    if (PARTS.has('fairness')) {
      const f = await fairness(ctx, receiver);
      console.log(
        `fairness: backlog ${f.bigBacklog} in 1 clinic + ${f.smallClinics} clinics x 10: small clinics p50 ${fmt(f.smallP50)} ms, p95 ${fmt(f.smallP95)} ms ` +
          `(big clinic had ${f.bigServedWhenSmallDone} served when the small ones were done); ` +
          `max in flight for one clinic ${f.maxInFlightOneClinic} (big clinic ${f.maxInFlightBigClinic})`,
      );
    }
  } finally {
    if (datasetPool)
      await dropDestinations(
        ctx.db,
        datasetPool.map((c) => c.endpointId!),
      );
    await receiver.close();
    if (workerCtx !== ctx) await closeContext(workerCtx);
    await closeContext(ctx);
    await dropDb?.();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

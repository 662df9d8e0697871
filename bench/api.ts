/**
 * `npm run bench:api`: load benchmark of the API.
 *
 * For each engine (PostgreSQL when DATABASE_URL is set, in a database of its own; and the
 * embedded PGlite in a temporary folder), a server process is seeded with one clinic of
 * BENCH_ROWS (100,000) patients and as many appointments, then autocannon runs on loopback
 * against each route and, just before it, against a bare route on the same server that returns
 * the same bytes (that route's own response: status, Content-Type and body) with no auth and
 * no database: its ceiling. Each route's req/s is printed as a ratio to its ceiling, and also
 * to the small ceiling (GET /facilities/{id}'s bytes) measured first.
 *
 * What the read cache hides is measured too: the list with the server's read caches off
 * (every request reads the database and serializes), and creations whose bodies are unique
 * (POST /patients, /leads, /calls; a booking takes a slot of its own). The server's peak
 * resident memory (VmHWM, reset before each route) is printed per route and for the whole load,
 * and so is the CPU one request cost the server, PostgreSQL and the load generator, with the
 * share of the cores busy (lib/cpu.ts): what bounds the route on this machine. On PGlite the
 * database's CPU is the server's.
 *
 * Environment: BENCH_ENGINES (postgres,pglite), BENCH_SECONDS (5 per measurement),
 * BENCH_ROUNDS (3 rounds of ceiling then route, the median round printed),
 * BENCH_CONNECTIONS (10,50: a list; every route is measured at each), BENCH_ROWS (100000),
 * BENCH_RATE (500: the fixed-rate run), BENCH_RATE_CONNECTIONS (10: the fixed-rate run's),
 * BENCH_CPU_PROF (a folder: the server runs with --cpu-prof and writes its profile there;
 * summarize it with `node scripts/proof-cpuprofile.mjs <file>`), BENCH_ONLY (route names).
 *
 * `BENCH_AGAINST=<another checkout>` (for example a `git worktree` of the commit before a change)
 * measures old against new instead: both servers run side by side, each seeded in its own
 * database, and every route is loaded on each in turn (old, new, new, old, …: BENCH_ROUNDS pairs,
 * the order flipped each pair so a drift of the machine lowers both sides alike), at the first
 * of BENCH_CONNECTIONS. It prints each pair's new/old ratio and their geometric mean: the "no route more
 * than 5 % slower" figure, measured seconds apart rather than minutes.
 *
 * `--dataset=<postgres url | database name next to DATABASE_URL's>` `--tokens=FILE`: no seed; the
 * server opens that database as it is (migrations already applied; kept at the end, with what
 * the load wrote: patients, leads, calls, appointments), e.g. one `npm run seed:scale --
 * --database=NAME --tokens=FILE` made. The routes are loaded, as without it, on one clinic: the
 * dataset's biggest (by patients), with its key from FILE, its first active calendar and its
 * latest appointment. The bookings take, in turn, the free slots of that calendar read before
 * the load (as the service finds them, from now to its horizon, a doctor at a time:
 * `freeSlots`, bench/lib/dataset.ts); the line after the seed says how many there are,
 * and once they are all taken the bookings answer 409 (the table's non-2xx). PostgreSQL only;
 * not with BENCH_AGAINST (the other checkout's server would seed into the dataset).
 */
import path from 'node:path';
import { datasetClinics, datasetUrl, freeSlots, readTokens, withDataset } from './lib/dataset.js';
import type { Seeded } from './lib/seed.js';
import { benchArgs, dedicatedDatabase, fmt, machine, PeakRss, percentile, run, startBenchServer, type BenchServer, type Measure } from './lib/harness.js';
import { CEILING_PATH } from './lib/constants.js';
import { TARGETS, type Target } from './lib/targets.js';
import { CORES, cpuPerRequest, sampleCpu, type CpuPerRequest } from './lib/cpu.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = Math.max(1, Math.min(3, Math.round(SECONDS / 2)));
/** Rounds of (ceiling, route) per route; the round with the median ratio is printed. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/**
 * Connections, a list: every route is measured at each. 50 keeps the server busy (on this
 * 2-core machine the bare ceiling answered 22k req/s at 10 connections and 39k at 100); 10
 * shows the latency of one request more than what the server can serve (a route that waits on
 * a commit sits half idle there). The routes' targets (targets.ts) are set at 50.
 */
const CONNECTION_COUNTS = (process.env.BENCH_CONNECTIONS ?? '10,50').split(',').map((c) => Number(c.trim()));
const RATE = Number(process.env.BENCH_RATE ?? 500);
/**
 * The fixed-rate run's connections: autocannon paces each connection on its own timer, all
 * started together, so 100 connections at 5 req/s each arrive as bursts of 100 every 200 ms,
 * not as a steady 500 req/s.
 */
const RATE_CONNECTIONS = Number(process.env.BENCH_RATE_CONNECTIONS ?? 10);
const ROWS = process.env.BENCH_ROWS ?? '100000';
/** Comma-separated route names to run (e.g. `GET /facilities/{id}` while profiling); all by default. */
const ONLY = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',').map((s) => s.trim()) : null;
const AGAINST = process.env.BENCH_AGAINST ? path.resolve(process.env.BENCH_AGAINST) : null;
const DATASET = benchArgs().dataset;
const TOKENS = benchArgs().tokens;
const ENGINES = DATASET
  ? ['postgres']
  : (process.env.BENCH_ENGINES ?? (process.env.DATABASE_URL ? 'postgres,pglite' : 'pglite')).split(',').map((e) => e.trim());
/** The most free slots of a dataset's calendar read for the bookings (about what 1,500 bookings/s take in every round and warm-up at two connection counts). */
const FREE_SLOTS = 200_000;

function loadOptions(server: BenchServer, connections: number, request: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    url: server.base,
    connections,
    headers: { authorization: `Bearer ${server.seeded.tokens[0]}`, 'content-type': 'application/json' },
    requests: [request],
    ...extra,
  };
}

async function measure(
  server: BenchServer,
  connections: number,
  name: string,
  request: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<Measure> {
  const options = loadOptions(server, connections, request, extra);
  await run(name, { ...options, duration: WARMUP_SECONDS }); // warm-up: JIT, caches, pools
  return run(name, { ...options, duration: SECONDS });
}

interface Comparison {
  route: Measure;
  ceiling: Measure;
  /** route / ceiling req/s of every round, in the order run. */
  ratios: number[];
  /** The CPU one request of the kept round cost the server, PostgreSQL, the load generator and the rest. */
  cpu: CpuPerRequest | null;
}

/**
 * A route against its ceiling: after a warm-up of both, ROUNDS rounds of (ceiling, route),
 * each pair back to back, so that a slow moment of this shared machine lowers both sides of
 * one round rather than one side of the comparison. The round with the median ratio is kept.
 */
async function compare(
  server: BenchServer,
  connections: number,
  name: string,
  ceilingRequest: Record<string, unknown>,
  request: Record<string, unknown>,
): Promise<Comparison> {
  const ceilingOptions = loadOptions(server, connections, ceilingRequest);
  const routeOptions = loadOptions(server, connections, request);
  await run(name, { ...ceilingOptions, duration: WARMUP_SECONDS });
  await run(name, { ...routeOptions, duration: WARMUP_SECONDS });
  const rounds: { route: Measure; ceiling: Measure; ratio: number; cpu: CpuPerRequest | null }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const ceiling = await run(`ceiling of ${name}`, { ...ceilingOptions, duration: SECONDS });
    const before = sampleCpu(server.child.pid ?? null);
    const route = await run(name, { ...routeOptions, duration: SECONDS });
    const cpu = cpuPerRequest(before, sampleCpu(server.child.pid ?? null), route.total);
    rounds.push({ route, ceiling, ratio: route.reqPerSec / ceiling.reqPerSec, cpu });
  }
  const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor((rounds.length - 1) / 2)]!;
  return { route: median.route, ceiling: median.ceiling, ratios: rounds.map((r) => r.ratio), cpu: median.cpu };
}

/**
 * Makes one real request as the load will, and stores its response in the ceiling slot so the
 * bare route answers the same bytes. Returns the body's size.
 */
async function storeCeiling(server: BenchServer, slot: string, request: Record<string, any>): Promise<number> {
  const sample = request.setupRequest ? request.setupRequest({ ...request }) : request;
  const response = await fetch(`${server.base}${sample.path}`, {
    method: sample.method,
    headers: { authorization: `Bearer ${server.seeded.tokens[0]}`, 'content-type': 'application/json' },
    body: sample.body,
  });
  const body = await response.text();
  if (response.status >= 300) throw new Error(`${sample.method} ${sample.path} answered ${response.status}: ${body}`);
  const stored = await fetch(`${server.base}${CEILING_PATH}/${slot}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ status: response.status, contentType: response.headers.get('content-type'), body }),
  });
  if (stored.status !== 204) throw new Error(`storing the ceiling answered ${stored.status}`);
  return Buffer.byteLength(body);
}

async function setReadCache(server: BenchServer, on: boolean): Promise<void> {
  const response = await fetch(`${server.base}/bench/read-cache`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ on }),
  });
  if (response.status !== 204) throw new Error(`turning the read cache ${on ? 'on' : 'off'} answered ${response.status}`);
}

/** PostgreSQL: a database of its own next to DATABASE_URL's (or `--dataset`, kept); PGlite: none (the server makes its folder). */
async function engineDatabase(engine: string, name: string): Promise<{ url: string; drop: () => Promise<void> } | null> {
  if (engine !== 'postgres') return null;
  if (DATASET) return { url: await datasetUrl(DATASET), drop: async () => {} };
  if (!process.env.DATABASE_URL) throw new Error('BENCH_ENGINES has postgres but DATABASE_URL is not set');
  return dedicatedDatabase(process.env.DATABASE_URL, name);
}

type Row = Comparison & { target: Target; bytes: number; peakRssMiB: number };

async function benchEngine(engine: string): Promise<string[]> {
  const lines: string[] = [];
  const say = (line = '') => {
    lines.push(line);
    console.log(line);
  };
  const database = await engineDatabase(engine, 'dcm_bench');
  const nodeArgs = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const server = DATASET
    ? await startDatasetServer(database!.url, nodeArgs)
    : await startBenchServer({ DATABASE_URL: database?.url, BENCH_ROWS: ROWS }, nodeArgs);
  const rss = new PeakRss(server.child.pid!);
  const wholeLoad = new PeakRss(server.child.pid!);
  try {
    const doc = await (await fetch(`${server.base}/v1/openapi.json`)).json();
    say(`\n## ${engine === 'postgres' ? 'PostgreSQL' : 'PGlite (embedded)'}`);
    say(
      DATASET
        ? `dataset ${DATASET}: its biggest clinic ${server.seeded.clinicId}, ${fmt(server.rows)} patients, its key of ${TOKENS}; ${fmt(server.seeded.freeSlots!.length)} free slots of its calendar for the bookings`
        : `seeded one clinic with ${fmt(server.rows)} patients and ${fmt(server.rows)} appointments in ${fmt(server.seedSeconds, 1)} s; ${server.seeded.tokens.length} keys`,
    );
    say(`autocannon: loopback, server in its own process; ${WARMUP_SECONDS} s of warm-up before each measured route and its ceiling`);
    say('rate limits raised to 10^9 per window for the benchmark (the limiter still runs on every request): the spec limits are not what is measured');
    wholeLoad.reset();

    for (const connections of CONNECTION_COUNTS) {
      say('');
      say(`### ${connections} connections`);
      say('');
      // Every route is compared with a bare route answering its own bytes (status, Content-Type,
      // body of one real response), measured just before it: what is left is the cost of auth,
      // the limiter, validation, the database and serialization, not of moving the bytes.
      // The first row, GET /facilities/{id}'s bytes, is the small ceiling every route is also set against.
      const smallCeiling: Measure | null =
        ONLY && !ONLY.includes('ceiling') ? null : await measure(server, connections, 'ceiling', { method: 'GET', path: CEILING_PATH });
      const rows: Row[] = [];
      const skipped: string[] = [];
      for (const [slot, target] of TARGETS.entries()) {
        if (ONLY && !ONLY.includes(target.name)) continue;
        if (!doc.paths?.[target.docPath]?.[target.method]) {
          skipped.push(target.name);
          continue;
        }
        const request = target.request(server, doc);
        if (target.readCache === false) await setReadCache(server, false);
        try {
          const bytes = await storeCeiling(server, String(slot), request);
          rss.reset();
          const comparison = await compare(server, connections, target.name, { ...request, path: `${CEILING_PATH}/${slot}` }, request);
          rows.push({ target, bytes, peakRssMiB: rss.peak(), ...comparison });
        } finally {
          if (target.readCache === false) await setReadCache(server, true);
        }
      }
      const pct = (a: number, b: number) => (Number.isFinite(b) ? `${fmt((100 * a) / b, 1)}%` : 'n/a');
      if (smallCeiling)
        say(
          `small ceiling (GET /facilities/{id}'s bytes, no auth, no database): ${fmt(smallCeiling.reqPerSec)} req/s, p50 ${smallCeiling.p50} ms, p99 ${smallCeiling.p99} ms`,
        );
      say('');
      say(
        `${ROUNDS} rounds of (ceiling, route) per route, ${SECONDS} s each; the round with the median ratio is shown, every round's ratio in the last column`,
      );
      say(`peak RSS: the server's VmHWM over that route's warm-ups and rounds; the targets are PostgreSQL's at 50 connections`);
      say(
        `CPU ms per request (lib/cpu.ts, the printed round): the server / every PostgreSQL process / this process, the load generator / the rest of the machine; cores busy: the share of all ${CORES} cores busy over that round`,
      );
      say('');
      say(
        `| route | response bytes | req/s | p50 ms | p99 ms | non-2xx | errors | ceiling req/s (same bytes) | ratio to its ceiling | ratio to the small ceiling | peak RSS MiB | CPU ms/req server / PostgreSQL / load / rest | cores busy | target | ratios of the rounds |`,
      );
      say(`|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|`);
      for (const { target, route: r, ceiling, bytes, ratios, peakRssMiB, cpu } of rows) {
        const each = ratios.map((x) => `${fmt(100 * x, 1)}%`).join(', ');
        const split = cpu ? [cpu.serverMs, cpu.postgresMs, cpu.loadMs, cpu.otherMs].map((ms) => fmt(ms, 2)).join(' / ') : 'n/a';
        say(
          `| ${target.name} | ${fmt(bytes)} | ${fmt(r.reqPerSec)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} | ${fmt(ceiling.reqPerSec)} | ${pct(r.reqPerSec, ceiling.reqPerSec)} | ${pct(r.reqPerSec, smallCeiling?.reqPerSec ?? NaN)} | ${fmt(peakRssMiB, 1)} | ${split} | ${cpu ? `${fmt(cpu.busyPct)}%` : 'n/a'} | ${goal(target, r)} | ${each} |`,
        );
      }
      for (const name of skipped) say(`| ${name} | skipped: route not present | | | | | | | | | | | | | |`);
    }
    say('');
    say(
      `peak RSS of the server over the whole load (${CONNECTION_COUNTS.join(' and ')} connections, every route): ${fmt(wholeLoad.peak(), 1)} MiB (target: at most 250 MiB on PostgreSQL)`,
    );

    say('');
    say(`fixed rate: ${RATE} req/s (autocannon overallRate) on ${RATE_CONNECTIONS} connections, ${SECONDS} s`);
    for (const target of TARGETS.filter((t) => FIXED_RATE_ROUTES.includes(t.name) && (!ONLY || ONLY.includes(t.name)))) {
      if (!doc.paths?.[target.docPath]?.[target.method]) {
        say(`- ${target.name}: skipped: route not present`);
        continue;
      }
      const m = await measure(server, RATE_CONNECTIONS, target.name, target.request(server, doc), { overallRate: RATE });
      say(`- ${target.name}: ${fmt(m.reqPerSec)} req/s achieved, p50 ${m.p50} ms, p99 ${m.p99} ms, non-2xx ${m.non2xx}, errors ${m.errors}`);
    }
  } finally {
    rss.stop();
    wholeLoad.stop();
    await server.stop();
    await database?.drop();
  }
  return lines;
}

const FIXED_RATE_ROUTES = ['GET /appointments?limit=50', 'GET /facilities/{id}'];

/** The route against its target (targets.ts; stated for every engine and connection count; the target is PostgreSQL's at 50). */
function goal(target: Target, r: Measure): string {
  if (!target.goal) return '';
  const { reqPerSec, maxP99Ms } = target.goal;
  const met = r.reqPerSec >= reqPerSec && (maxP99Ms === undefined || r.p99 < maxP99Ms);
  return `${fmt(reqPerSec)} req/s${maxP99Ms ? `, p99 < ${maxP99Ms} ms` : ''}: ${met ? 'met' : `${fmt((100 * r.reqPerSec) / reqPerSec)}%`}`;
}

/** Old (`BENCH_AGAINST`'s checkout) against new (this one) on one engine: see the header. */
async function oldAgainstNew(engine: string, against: string): Promise<void> {
  const databases: { url: string; drop: () => Promise<void> }[] = [];
  const servers: BenchServer[] = [];
  const connections = CONNECTION_COUNTS[0]!;
  try {
    for (const [root, label] of [
      [against, 'old'],
      [undefined, 'new'],
    ] as const) {
      const database = await engineDatabase(engine, `dcm_bench_${label}`);
      if (database) databases.push(database);
      servers.push(await startBenchServer({ DATABASE_URL: database?.url, BENCH_ROWS: ROWS }, [], root));
    }
    const docs = await Promise.all(servers.map(async (s) => (await fetch(`${s.base}/v1/openapi.json`)).json()));
    console.log(`\n## ${engine === 'postgres' ? 'PostgreSQL' : 'PGlite (embedded)'}: old (${against}) against new (this checkout)`);
    console.log(
      `each seeded with ${fmt(servers[0]!.rows)} patients; ${connections} connections; ${ROUNDS} pairs of ${SECONDS} s per route after a warm-up of each, the order flipped every pair`,
    );
    console.log('\n| route | old req/s (median) | new req/s (median) | new/old of each pair | new/old (geometric mean) | p99 ms old / new (median) |');
    console.log('|---|---:|---:|---|---:|---|');
    for (const target of TARGETS) {
      if (ONLY && !ONLY.includes(target.name)) continue;
      if (docs.some((doc) => !doc.paths?.[target.docPath]?.[target.method])) {
        console.log(`| ${target.name} | skipped: route not present on both | | | | |`);
        continue;
      }
      const options = servers.map((s, i) => loadOptions(s, connections, target.request(s, docs[i])));
      if (target.readCache === false) await Promise.all(servers.map((s) => setReadCache(s, false)));
      try {
        for (const o of options) await run(target.name, { ...o, duration: WARMUP_SECONDS });
        const pairs: { old: Measure; fresh: Measure }[] = [];
        for (let i = 0; i < ROUNDS; i++) {
          const order = i % 2 === 0 ? [0, 1] : [1, 0];
          const measured: Measure[] = [];
          for (const which of order) measured[which] = await run(target.name, { ...options[which]!, duration: SECONDS });
          pairs.push({ old: measured[0]!, fresh: measured[1]! });
        }
        const ratios = pairs.map((p) => p.fresh.reqPerSec / p.old.reqPerSec);
        const middle = (xs: number[]) => percentile(xs, 50);
        // The geometric mean: a pair at 0.8 and one at 1.25 cancel out, as they should.
        const geometric = Math.exp(ratios.reduce((sum, r) => sum + Math.log(r), 0) / ratios.length);
        console.log(
          `| ${target.name} | ${fmt(middle(pairs.map((p) => p.old.reqPerSec)))} | ${fmt(middle(pairs.map((p) => p.fresh.reqPerSec)))} | ${ratios
            .map((r) => fmt(r, 2))
            .join(', ')} | ${fmt(geometric, 2)} | ${middle(pairs.map((p) => p.old.p99))} / ${middle(pairs.map((p) => p.fresh.p99))} |`,
        );
      } finally {
        if (target.readCache === false) await Promise.all(servers.map((s) => setReadCache(s, true)));
      }
    }
  } finally {
    for (const s of servers) await s.stop();
    for (const d of databases) await d.drop();
  }
}

/** `--dataset`: the server on it, serving its biggest clinic (read here), and that calendar's free slots for the bookings. */
async function startDatasetServer(url: string, nodeArgs: string[]): Promise<BenchServer> {
  const [clinic] = await datasetClinics(url, readTokens(TOKENS), 1);
  if (!clinic) throw new Error(`--dataset=${DATASET}: its biggest clinic has no active calendar with doctors`);
  const latest = await withDataset(url, (c) =>
    c.query<{ id: string; patient_id: string }>(`SELECT id, patient_id FROM appointments WHERE clinic_id = $1 ORDER BY start_at DESC LIMIT 1`, [
      clinic.clinicId,
    ]),
  );
  const appointment = latest.rows[0];
  if (!appointment) throw new Error(`--dataset=${DATASET}: clinic ${clinic.clinicId} has no appointment`);
  const seeded: Seeded = {
    clinicId: clinic.clinicId,
    facilityId: clinic.facilityId,
    doctorId: clinic.calendarDoctorIds[0]!,
    tokens: [clinic.token],
    appointmentId: appointment.id,
    patientId: appointment.patient_id,
    calendarId: clinic.calendarId,
    calendarDoctorIds: clinic.calendarDoctorIds,
    slotMinutes: clinic.slotMinutes,
  };
  const server = await startBenchServer({ DATABASE_URL: url, BENCH_ROWS: String(clinic.patients), BENCH_SEEDED: JSON.stringify(seeded) }, nodeArgs);
  server.seeded.freeSlots = await freeSlots(url, clinic.clinicId, clinic.calendarId, FREE_SLOTS);
  return server;
}

async function main(): Promise<void> {
  if (DATASET && AGAINST)
    throw new Error('--dataset with BENCH_AGAINST: the other checkout’s bench server may not know --dataset and would seed into the dataset');
  console.log('# bench:api');
  console.log(machine());
  for (const engine of ENGINES) {
    if (AGAINST) await oldAgainstNew(engine, AGAINST);
    else await benchEngine(engine);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

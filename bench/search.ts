/**
 * Patient search benchmark: `npm run bench:search [-- options]`.
 *
 * Parts (`--parts=shapes,load,scale,profile`, default `shapes`), each can run alone:
 * - shapes: per query shape (bench/lib/search-corpus.ts: typos, two errors in one word,
 *   swapped names, compound first names, surnames with particles, a surname or a first name
 *   alone, the most common surnames, speech-to-text spellings, a surname with a birth year,
 *   phone, tax code, email) recall@1, recall@5, the p50 / p99 / max latency and the mean CPU
 *   time of this process (scoring, query building, the driver) per search of the search
 *   service (searchPatients, the code behind GET /v1/patients/search, without HTTP), for every
 *   size in `--n` and engine in `--engines`;
 * - load: `--clients=20` clients sending together `--rate=100` searches per second for
 *   `--seconds=30`, queries of every shape mixed, at the largest `--n`; latency is counted
 *   from the moment a search was due, so a queue shows;
 * - scale: the shapes and the load again, on PostgreSQL, with `--others=2000000` patients of
 *   `--clinics=200` other clinics in the same tables, and the query plans of one search per
 *   shape (EXPLAIN (ANALYZE, BUFFERS) of each statement, shortened);
 * - profile: where the time of a search goes, per shape: each SQL statement kind and the
 *   rest (scoring in JavaScript), then the work of a search without the waits of a shared
 *   machine: its statements' planning + execution time replayed under EXPLAIN ANALYZE and
 *   the CPU time of this process; PostgreSQL only; `--plans=1` adds the plans.
 *
 * `--http` (PostgreSQL): the shapes and the load are sent as GET /v1/patients/search to the
 * real app in a process of its own (bench/lib/search-server.ts) on the seeded database, one
 * request at a time over a kept-alive connection, as a voice agent would; without it the
 * search service is called in this process, which also holds the corpus and its garbage.
 *
 * The `nickname` shape (a caller saying the name they are called by, "Pino Esposito") also
 * prints its recall@1 for nicknames of one registered name and of several ("Ale").
 *
 * Other options: `--queries=200` per shape, `--seed=…`, `--kinds=a,b` (shapes to run),
 * `--failures=1` (list the misses), `--again=N` (the
 * slowest queries of each shape sent N times more: work or a pause), `--reseed` (rebuild the kept databases).
 *
 * Databases are seeded once and kept (bench/lib/search-seed.ts): PostgreSQL databases
 * `dcm_bench_search_<n>_<others>` next to DATABASE_URL's, PGlite data folders in the temp folder.
 *
 * `--dataset=<postgres url | database name next to DATABASE_URL's>`: no seed; that database as
 * it is (migrations already applied; kept), e.g. one `npm run seed:scale -- --database=NAME` made.
 * The clinic searched is its biggest by patients (the others are in the same tables, as the
 * scale part's); the corpus the queries are made from is that clinic's patients, read from it
 * (bench/lib/dataset.ts, datasetCorpus), so the recall figures are those of its names (seed:scale
 * has few, and tax codes of its own shape, not the fiscal code's). The shapes, load and profile
 * parts run on it once (PostgreSQL; `--n`, `--engines`, `scale` do not apply). With `--http`,
 * `--tokens=FILE` (seed:scale's) gives the clinic's key, since no key is added to the dataset.
 *
 * A name query counts as found when the top hit carries the name asked for (namesakes cannot
 * be told apart by a name; closeMatches reports them): the whole name, or the surname, the
 * first name, the surname and birth year for queries of those alone. Phone, tax code and email
 * queries count only with the target patient. A "misspelling" that is exactly another
 * patient's name is skipped and counted in `skipped`.
 */
import os from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import pg from 'pg';
import { Kysely, PostgresDialect, type LogEvent } from 'kysely';
import type { DB } from '../src/db/schema.js';
import { backOffice } from '../src/db/tenant.js';
import { normalizeName, SEARCH_TUNING, searchPatients, NICKNAMES } from '../src/modules/patients/index.js';
import { SHAPES, commonSurnames, isFound, makePeople, rng, type Person, type Shape } from './lib/search-corpus.js';
import { benchArgs, percentile as pct, startServerProcess } from './lib/harness.js';
import { datasetClinics, datasetCorpus, datasetUrl, readTokens } from './lib/dataset.js';
import { openDatabase } from '../src/db/database.js';
import { tuneHeap } from '../src/lib/heap.js';
import { CLINIC_ID, openSeeded, patientId, type SeedPlan } from './lib/search-seed.js';

type SearchAnswer = Awaited<ReturnType<typeof searchPatients>>;
/** One search of the benchmark: the service in this process, or the API over HTTP (`--http`). */
type Search = (q: string) => Promise<SearchAnswer>;

const args = benchArgs();
const SIZES = (args.n ?? '10000,100000').split(',').map(Number);
const ENGINES = (args.engines ?? (process.env.DATABASE_URL ? 'pglite,postgres' : 'pglite')).split(',');
const PARTS = new Set((args.parts ?? 'shapes').split(','));
const QUERIES = Number(args.queries ?? 200);
const SEED = Number(args.seed ?? 20260301);
const OTHERS = Number(args.others ?? 2_000_000);
const CLINICS = Number(args.clinics ?? 200);
const CLIENTS = Number(args.clients ?? 20);
const RATE = Number(args.rate ?? 100);
const SECONDS = Number(args.seconds ?? 30);
const KINDS = args.kinds ? new Set(args.kinds.split(',')) : null;
const DATASET = args.dataset;
let scope = { ...backOffice(CLINIC_ID), region: 'IT' as const };
/** The id of a corpus person's patient: search-seed's by index, or the dataset's. */
let idOf = (person: Person) => patientId(person.index);
/** `--dataset --http`: the searched clinic's id and key, for the server. */
let datasetKey: { clinicId: string; token: string } | null = null;
// Without --http the search runs in this process: collected as the server's process is
// (src/lib/heap.ts). With V8's pretenuring the driver's rows were born old here, and every
// scavenge of this heap, which holds the corpus, took 4-6 ms instead of 1-3 (--trace-gc).
tuneHeap();
// This process's own collections are not the search's: before each shape's queries the heap is
// collected whole, so the seeding's and the last shape's garbage are not collected inside a
// measured search (with --http a client scavenge of the seeding's heap took 16-24 ms, --trace-gc).
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

const ms = (x: number) => x.toFixed(1);
const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

interface Query {
  shape: Shape;
  q: string;
  person: Person;
}

/** `QUERIES` queries per shape, the same every run for a given seed and size. */
function makeQueries(people: Person[], n: number, seed = SEED + n): Query[] {
  const qrand = rng(seed);
  const common = commonSurnames(people);
  const realNames = new Set(people.flatMap((p) => [normalizeName(`${p.first} ${p.last}`), normalizeName(`${p.last} ${p.first}`)]));
  const out: Query[] = [];
  for (const shape of SHAPES) {
    if (KINDS && !KINDS.has(shape.name)) continue;
    let count = 0;
    for (let attempt = 0; count < QUERIES && attempt < QUERIES * 200; attempt++) {
      const person = people[Math.floor(qrand() * people.length)]!;
      const q = shape.gen(person, qrand, common);
      if (!q || q.length < 2 || q.length > 100) continue;
      const nq = normalizeName(q);
      const own = [normalizeName(`${person.first} ${person.last}`), normalizeName(`${person.last} ${person.first}`)];
      if (shape.expect === 'name' && realNames.has(nq) && !own.includes(nq)) {
        out.push({ shape, q: '', person }); // skipped: counted, not run
        continue;
      }
      out.push({ shape, q, person });
      count++;
    }
  }
  return out;
}

async function shapesTable(search: Search, queries: Query[]): Promise<void> {
  console.log('| query shape | queries | skipped | recall@1 | recall@5 | p50 ms | p99 ms | max ms | Node CPU ms | slowest query |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const shape of SHAPES) {
    const mine = queries.filter((x) => x.shape === shape);
    if (mine.length === 0) continue;
    let hit1 = 0;
    let hit5 = 0;
    let count = 0;
    const times: number[] = [];
    let slowest = { q: '', t: 0 };
    const timed: Array<{ q: string; t: number; where: string }> = [];
    const ranksFirst = new Set<string>();
    collectGarbage();
    const cpu = process.cpuUsage();
    for (const { q, person } of mine) {
      if (!q) continue;
      count++;
      const start = performance.now();
      const res = await search(q);
      const t = performance.now() - start;
      times.push(t);
      timed.push({ q, t, where: lastWhere() });
      if (t > slowest.t) slowest = { q, t };
      const ok = (h: (typeof res.data)[number]) => isFound(shape.expect, person, h, idOf(person));
      if (res.data[0] && ok(res.data[0])) {
        hit1++;
        ranksFirst.add(q);
      } else if (args.failures)
        console.log(
          `  miss ${shape.name}: "${q}" -> want ${person.first} ${person.last} ${person.dob.slice(0, 4)}; got ${res.data
            .slice(0, 3)
            .map((h) => `${h.name} ${h.birthYear} ${h.score}`)
            .join(', ')} (close ${res.closeMatches})`,
        );
      if (res.data.slice(0, 5).some(ok)) hit5++;
    }
    const used = process.cpuUsage(cpu);
    if (shape.name === 'nickname') nicknameSplit(mine, ranksFirst);
    if (AGAIN > 0) slowestAgain.push({ shape: shape.name, slowest: timed.sort((a, b) => b.t - a.t).slice(0, 3) });
    const target = shape.target !== undefined && hit1 / count < shape.target ? ` (target ${shape.target})` : '';
    console.log(
      `| ${shape.name} | ${count} | ${mine.length - count} | ${(hit1 / count).toFixed(3)}${target} | ${(hit5 / count).toFixed(3)} | ${ms(pct(times, 50))} | ${ms(pct(times, 99))} | ${ms(Math.max(...times))} | ${ms((used.user + used.system) / 1000 / count)} | \`${slowest.q}\` |`,
    );
  }
}

/**
 * `--again=N`: each shape's three slowest queries sent N times more, after the table. A query
 * that is slow every time does more work than the others (a plan, many candidates); one that is
 * fast when repeated met a pause (a collection, a flush, the machine) on its first run.
 */
const AGAIN = Number(args.again ?? 0);
const slowestAgain: Array<{ shape: string; slowest: Array<{ q: string; t: number; where: string }> }> = [];
async function againTable(search: Search): Promise<void> {
  console.log(
    `\nThe slowest queries sent ${AGAIN} times more (the first run's time in the app / its GC / this client's GC, with --http):\n\n| query shape | query | first ms | first: app / app GC / client GC ms | again: min ms | median ms | max ms |\n|---|---|---|---|---|---|---|`,
  );
  for (const { shape, slowest } of slowestAgain.splice(0)) {
    for (const { q, t, where } of slowest) {
      const again: number[] = [];
      for (let i = 0; i < AGAIN; i++) {
        const start = performance.now();
        await search(q);
        again.push(performance.now() - start);
      }
      console.log(`| ${shape} | \`${q}\` | ${ms(t)} | ${where} | ${ms(Math.min(...again))} | ${ms(pct(again, 50))} | ${ms(Math.max(...again))} |`);
    }
  }
}

/**
 * The nickname shape split in two: nicknames of one registered name, and nicknames of several
 * ("Ale": Alessandro, Alessandra, Alessia), where the name said cannot tell which is meant and
 * the table's most common form comes first (printed after the shapes table's rows, as a note).
 */
function nicknameSplit(queries: Query[], ranksFirst: Set<string>): void {
  const several = (q: string) =>
    normalizeName(q)
      .split(' ')
      .some((w) => (NICKNAMES[w]?.length ?? 0) > 1);
  for (const [label, part] of [
    ['one registered name', queries.filter((x) => x.q && !several(x.q))],
    ['several registered names', queries.filter((x) => x.q && several(x.q))],
  ] as const) {
    const first = part.filter((x) => ranksFirst.has(x.q)).length;
    nicknameNotes.push(`nickname, said for ${label}: ${part.length} queries, recall@1 ${(first / Math.max(1, part.length)).toFixed(3)}`);
  }
}
const nicknameNotes: string[] = [];

/** `CLIENTS` clients, `RATE` searches per second in all, open loop: latency from when each search was due. */
async function loadRun(search: Search, queries: Query[]): Promise<void> {
  const runnable = queries.filter((x) => x.q);
  const total = RATE * SECONDS;
  const latencies: number[] = [];
  let errors = 0;
  const t0 = performance.now() + 100;
  const interval = 1000 / RATE;
  const client = async (c: number) => {
    for (let k = c; k < total; k += CLIENTS) {
      const due = t0 + k * interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const { q } = runnable[(k * 7919) % runnable.length]!;
      try {
        await search(q);
      } catch {
        errors++;
      }
      latencies.push(performance.now() - due);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
  const elapsed = (performance.now() - t0) / 1000;
  console.log(`| clients | searches/s asked | done | achieved/s | errors | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|---|---|---|`);
  console.log(
    `| ${CLIENTS} | ${RATE} | ${latencies.length} | ${(latencies.length / elapsed).toFixed(1)} | ${errors} | ${ms(pct(latencies, 50))} | ${ms(pct(latencies, 99))} | ${ms(Math.max(...latencies))} |`,
  );
}

/** A Kysely over the same database that records every statement, its parameters and its time. */
function recordingDb(url: string) {
  const statements: Array<{ sql: string; parameters: readonly unknown[]; ms: number }> = [];
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool }),
    log: (e: LogEvent) => {
      if (e.level === 'query') statements.push({ sql: e.query.sql, parameters: e.query.parameters, ms: e.queryDurationMillis });
    },
  });
  return { db, statements, pool };
}

function statementKind(text: string): string {
  if (/patient_name_keys|patient_name_terms/.test(text)) return 'vocabulary';
  if (/appointments/.test(text)) return 'details+lastVisitAt';
  if (/set_config/.test(text)) return 'settings';
  if (/full_norm %|<%/.test(text)) return 'trigram fallback';
  if (/levenshtein_less_equal/.test(text)) return 'vocabulary';
  if (/^begin|^commit|^rollback/i.test(text.trim())) return 'transaction';
  return 'patients';
}

async function explain(pool: pg.Pool, statement: { sql: string; parameters: readonly unknown[] }): Promise<string> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${statement.sql}`, statement.parameters as unknown[]);
    await client.query('ROLLBACK');
    return rows
      .map((r) => r['QUERY PLAN'])
      .filter((l: string) => !/^\s*(Planning:|Buffers: shared hit=\d+$)/.test(l))
      .join('\n');
  } finally {
    client.release();
  }
}

/** Planning + execution time of one statement in the database (EXPLAIN ANALYZE). */
async function serverTime(pool: pg.Pool, statement: { sql: string; parameters: readonly unknown[] }): Promise<number> {
  if (/^(begin|commit|rollback)/i.test(statement.sql.trim())) return 0;
  const { rows } = await pool.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.sql}`, statement.parameters as unknown[]);
  const plan = rows[0]['QUERY PLAN'][0];
  return plan['Planning Time'] + plan['Execution Time'];
}

/** Per shape: mean time per statement kind, the rest (JavaScript: scoring, parsing), and optionally the plans of its slowest search. */
async function profile(url: string, queries: Query[], plans: boolean): Promise<void> {
  const rec = recordingDb(url);
  console.log(
    '| query shape | total ms (mean) | vocabulary | patients | trigram fallback | details+lastVisitAt | other SQL | JS (scorer…) | server ms p50 / max | Node CPU ms p50 / max |\n|---|---|---|---|---|---|---|---|---|---|',
  );
  try {
    for (const shape of SHAPES) {
      const mine = queries.filter((x) => x.shape === shape && x.q).slice(0, Math.min(QUERIES, 50));
      if (mine.length === 0) continue;
      const sums = new Map<string, number>();
      let total = 0;
      let slowest: { q: string; t: number; statements: typeof rec.statements } = { q: '', t: -1, statements: [] };
      const server: number[] = [];
      const cpus: number[] = [];
      for (const { q } of mine) {
        rec.statements.length = 0;
        const start = performance.now();
        const cpu = process.cpuUsage();
        await searchPatients(rec.db, scope, { q, limit: 5 });
        const used = process.cpuUsage(cpu);
        const t = performance.now() - start;
        cpus.push((used.user + used.system) / 1000);
        // The work of the search in the database, without the waits of a loaded machine: the
        // planning and execution times of its statements, replayed under EXPLAIN ANALYZE.
        let work = 0;
        for (const st of [...rec.statements]) work += await serverTime(rec.pool, st);
        server.push(work);
        total += t;
        let sqlTime = 0;
        for (const s of rec.statements) {
          const kind = statementKind(s.sql);
          sums.set(kind, (sums.get(kind) ?? 0) + s.ms);
          sqlTime += s.ms;
        }
        sums.set('js', (sums.get('js') ?? 0) + t - sqlTime);
        if (t > slowest.t) slowest = { q, t, statements: [...rec.statements] };
      }
      const mean = (k: string) => ms((sums.get(k) ?? 0) / mine.length);
      const other = ((sums.get('settings') ?? 0) + (sums.get('transaction') ?? 0)) / mine.length;
      console.log(
        `| ${shape.name} | ${ms(total / mine.length)} | ${mean('vocabulary')} | ${mean('patients')} | ${mean('trigram fallback')} | ${mean('details+lastVisitAt')} | ${ms(other)} | ${mean('js')} | ${ms(pct(server, 50))} / ${ms(Math.max(...server))} | ${ms(pct(cpus, 50))} / ${ms(Math.max(...cpus))} |`,
      );
      if (plans) {
        console.log(`\n<details><summary>${shape.name}: slowest "${slowest.q}" ${ms(slowest.t)} ms</summary>\n\n\`\`\``);
        for (const s of slowest.statements) {
          if (/^(begin|commit|rollback)/i.test(s.sql.trim()) || /set_config/.test(s.sql)) continue;
          console.log(`-- ${statementKind(s.sql)}, ${ms(s.ms)} ms`);
          console.log(await explain(rec.pool, s));
        }
        console.log('```\n</details>\n');
      }
    }
  } finally {
    await rec.db.destroy();
  }
}

/**
 * The seeded database and the queries. The corpus is only for seeding and making the queries:
 * it is not kept, so this process holds the queries alone (with --http the client's own
 * collections are less of the figure).
 */
async function seededQueries(engine: 'postgres' | 'pglite', n: number, others: number) {
  const people = makePeople(n, rng(SEED));
  const plan: SeedPlan = { engine, n, others, clinics: others > 0 ? CLINICS : 0, seed: SEED, reseed: !!args.reseed }; // the pool of a server (DB_POOL_MAX default 10)
  const seeded = await openSeeded(plan, people);
  return { seeded, queries: makeQueries(people, n), unmeasured: makeQueries(people, n, SEED + n + 1).filter((x) => x.q) };
}

/** `--dataset`: its biggest clinic searched, the queries made from its patients (see the header). */
async function datasetQueries(given: string) {
  const url = await datasetUrl(given);
  const tokens = args.tokens ? readTokens(args.tokens) : null;
  if (args.http && !tokens) throw new Error('--dataset with --http needs --tokens=FILE: the searched clinic’s key');
  const [clinic] = await datasetClinics(url, tokens, 1);
  const { people, ids } = await datasetCorpus(url, clinic!.clinicId);
  if (people.length === 0) throw new Error(`--dataset=${given}: clinic ${clinic!.clinicId} has no patient with a phone, tax code, email and birth date`);
  scope = { ...backOffice(clinic!.clinicId), region: 'IT' as const };
  idOf = (person) => ids[person.index]!;
  datasetKey = { clinicId: clinic!.clinicId, token: clinic!.token };
  const database = await openDatabase({ databaseUrl: url, dataDir: null });
  const seeded = { database, url, seedSeconds: 0, reused: true };
  return {
    seeded,
    patients: clinic!.patients,
    queries: makeQueries(people, people.length),
    unmeasured: makeQueries(people, people.length, SEED + people.length + 1).filter((x) => x.q),
  };
}

async function section(engine: 'postgres' | 'pglite', n: number, others: number, parts: { shapes: boolean; load: boolean; profile: boolean; plans: boolean }) {
  const { seeded, queries, unmeasured, patients } = DATASET ? await datasetQueries(DATASET) : { ...(await seededQueries(engine, n, others)), patients: 0 };
  const what = DATASET
    ? `dataset ${DATASET}: its biggest clinic, ${patients.toLocaleString('en')} patients, queries made from ${queries.length.toLocaleString('en')} of them`
    : others > 0
      ? `${n.toLocaleString('en')} patients in the clinic searched + ${others.toLocaleString('en')} of ${CLINICS} other clinics`
      : `N = ${n.toLocaleString('en')}`;
  console.log(
    `\n## ${engine}, ${what} (${seeded.reused ? 'kept database reused' : `seeded in ${seeded.seedSeconds.toFixed(1)} s`}; load average ${loadAverage()})\n`,
  );
  const server = args.http && seeded.url ? await startSearchServer(seeded.url) : null;
  const search: Search = server ? server.search : (q) => searchPatients(seeded.database.db, scope, { q, limit: 5 });
  if (server) console.log('Searches sent as GET /v1/patients/search to the app in a process of its own (--http).\n');
  try {
    // Warm the caches the way a running server has them: its code, and as many warm
    // connections to the database as the load's clients keep busy (a new backend's first
    // search costs tens of ms: src/db/database.ts). Queries of every shape, not the ones
    // measured: the first 200 measured ones were all of the first shape, and the second shape
    // measured, the first the warm-up had not met, had the run's highest p99 in five runs of
    // seven (9.7-15.7 ms; 4.4-7.4 with this warm-up).
    const warmUp = unmeasured.filter((_, i) => i % Math.max(1, Math.floor(unmeasured.length / 200)) === 0).slice(0, 200);
    for (const { q } of warmUp) await search(q);
    for (let i = 0; i < warmUp.length; i += CLIENTS) await Promise.all(warmUp.slice(i, i + CLIENTS).map(({ q }) => search(q)));
    if (parts.shapes) await shapesTable(search, queries);
    for (const note of nicknameNotes.splice(0)) console.log(`\n${note}`);
    if (AGAIN > 0) await againTable(search);
    if (parts.load) {
      console.log(`\nLoad: ${CLIENTS} clients, ${RATE} searches/s in all for ${SECONDS} s, every shape mixed (load average ${loadAverage()})\n`);
      await loadRun(search, queries);
    }
    if (parts.profile) {
      if (!seeded.url) console.log('\n(profile: PostgreSQL only)');
      else {
        console.log(`\nWhere the time goes (mean ms per search, first ${Math.min(QUERIES, 50)} queries per shape):\n`);
        await profile(seeded.url, queries, parts.plans);
      }
    }
  } finally {
    server?.stop();
    await seeded.database.close();
  }
}

/** This process's garbage collections, in ms in all (the client's share of a slow search). */
let clientGcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) clientGcMs += e.duration;
}).observe({ entryTypes: ['gc'] });
/** The last search's time in the app and its GC (its Server-Timing header), and this process's GC meanwhile. */
let lastTiming = { app: NaN, appGc: NaN, clientGc: NaN };
const lastWhere = () => `${ms(lastTiming.app)} / ${ms(lastTiming.appGc)} / ${ms(lastTiming.clientGc)}`;

/** The app on the seeded database in a child process (`--http`), and a search through it. */
async function startSearchServer(databaseUrl: string): Promise<{ search: Search; stop: () => void }> {
  const { ready, stop } = await startServerProcess<{ port: number; token: string }>('bench/lib/search-server.ts', {
    DATABASE_URL: databaseUrl,
    ...(datasetKey ? { BENCH_CLINIC_ID: datasetKey.clinicId, BENCH_TOKEN: datasetKey.token } : {}),
  });
  const base = `http://127.0.0.1:${ready.port}/v1/patients/search?limit=5&q=`;
  const headers = { authorization: `Bearer ${ready.token}` };
  return {
    search: async (q) => {
      const gcBefore = clientGcMs;
      const res = await fetch(base + encodeURIComponent(q), { headers });
      if (res.status !== 200) throw new Error(`search answered ${res.status}: ${await res.text()}`);
      const answer = (await res.json()) as SearchAnswer;
      const timing = res.headers.get('server-timing') ?? '';
      const dur = (name: string) => Number(new RegExp(`${name};dur=([\\d.]+)`).exec(timing)?.[1] ?? NaN);
      lastTiming = { app: dur('app'), appGc: dur('gc'), clientGc: clientGcMs - gcBefore };
      return answer;
    },
    stop: () => void stop(),
  };
}

const cpu = os.cpus();
console.log(
  `# Patient search benchmark\n\nMachine: ${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, Node ${process.version}, ${os.platform()} ${os.release()}; load average ${loadAverage()}`,
);
console.log(
  `Seed ${SEED}, ${QUERIES} queries per shape, parts ${[...PARTS].join(', ')}, tuning ${JSON.stringify(SEARCH_TUNING)}, sizes ${SIZES.join(', ')}, engines ${ENGINES.join(', ')}`,
);
const largest = Math.max(...SIZES);
if (DATASET) {
  const parts = { shapes: PARTS.has('shapes'), load: PARTS.has('load'), profile: PARTS.has('profile'), plans: !!args.plans };
  await section('postgres', 0, 0, parts);
} else
  for (const engine of ENGINES as Array<'postgres' | 'pglite'>) {
    for (const n of SIZES) {
      const shapes = PARTS.has('shapes');
      const load = PARTS.has('load') && n === largest;
      const prof = PARTS.has('profile');
      if (shapes || load || prof) await section(engine, n, 0, { shapes, load, profile: prof, plans: !!args.plans });
    }
  }
if (PARTS.has('scale') && !DATASET) {
  if (!process.env.DATABASE_URL) throw new Error('the scale run needs DATABASE_URL (PostgreSQL)');
  await section('postgres', largest, OTHERS, { shapes: true, load: true, profile: true, plans: true });
}

/**
 * `npm run bench:api`: load benchmark of the API (issue 6.1).
 *
 * For each engine (PostgreSQL when DATABASE_URL is set, in a database of its own; and the
 * embedded PGlite in a temporary folder), a server process is seeded with one clinic of
 * BENCH_ROWS (100,000) patients and as many appointments, then autocannon runs on loopback
 * against each route and against a bare route on the same server that returns the same bytes
 * as GET /facilities/{id} with no auth and no database (the ceiling). Routes not in the live
 * OpenAPI document (not merged yet) are reported as skipped.
 *
 * Environment: BENCH_ENGINES (postgres,pglite), BENCH_SECONDS (10 per route),
 * BENCH_CONNECTIONS (10), BENCH_ROWS (100000), BENCH_RATE (500: the fixed-rate run),
 * BENCH_CPU_PROF (a folder: the server runs with --cpu-prof and writes its profile there;
 * summarize it with `node scripts/proof-cpuprofile.mjs <file>`), BENCH_ONLY (route names).
 */
import { dedicatedDatabase, fmt, machine, run, startBenchServer, type BenchServer, type Measure } from './lib/harness.js';
import { CEILING_PATH } from './lib/constants.js';
import { TARGETS } from './lib/targets.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Math.max(1, Math.min(3, Math.round(SECONDS / 4)));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 500);
const ROWS = process.env.BENCH_ROWS ?? '100000';
/** Comma-separated route names to run (e.g. `GET /facilities/{id}` while profiling); all by default. */
const ONLY = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',').map((s) => s.trim()) : null;
const ENGINES = (process.env.BENCH_ENGINES ?? (process.env.DATABASE_URL ? 'postgres,pglite' : 'pglite')).split(',').map((e) => e.trim());

async function measure(server: BenchServer, name: string, request: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Measure> {
  const options = {
    url: server.base,
    connections: CONNECTIONS,
    headers: { authorization: `Bearer ${server.seeded.tokens[0]}`, 'content-type': 'application/json' },
    requests: [request],
    ...extra,
  };
  await run(name, { ...options, duration: WARMUP_SECONDS }); // warm-up: JIT, caches, pools
  return run(name, { ...options, duration: SECONDS });
}

async function benchEngine(engine: string): Promise<string[]> {
  const lines: string[] = [];
  const say = (line = '') => {
    lines.push(line);
    console.log(line);
  };
  let database: { url: string; drop: () => Promise<void> } | null = null;
  if (engine === 'postgres') {
    if (!process.env.DATABASE_URL) throw new Error('BENCH_ENGINES has postgres but DATABASE_URL is not set');
    database = await dedicatedDatabase(process.env.DATABASE_URL, 'dcm_bench');
  }
  const nodeArgs = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const server = await startBenchServer({ DATABASE_URL: database?.url, BENCH_ROWS: ROWS }, nodeArgs);
  try {
    const doc = await (await fetch(`${server.base}/v1/openapi.json`)).json();
    say(`\n## ${engine === 'postgres' ? 'PostgreSQL' : 'PGlite (embedded)'}`);
    say(`seeded one clinic with ${fmt(server.rows)} patients and ${fmt(server.rows)} appointments in ${fmt(server.seedSeconds, 1)} s; ${server.seeded.tokens.length} keys`);
    say(`autocannon: ${CONNECTIONS} connections, ${SECONDS} s per route after ${WARMUP_SECONDS} s of warm-up, loopback, server in its own process`);
    say('rate limits raised to 10^9 per window for the benchmark (the limiter still runs on every request): the spec limits are not what is measured');
    say('');

    const ceilingName = 'ceiling (no auth, no database, same bytes)';
    const ceiling: Measure = ONLY && !ONLY.includes('ceiling')
      ? { name: ceilingName, reqPerSec: NaN, p50: NaN, p99: NaN, non2xx: 0, errors: 0, total: 0 }
      : await measure(server, ceilingName, { method: 'GET', path: CEILING_PATH });
    const rows: (Measure | { name: string; skipped: string })[] = [];
    for (const target of TARGETS) {
      if (ONLY && !ONLY.includes(target.name)) continue;
      if (!doc.paths?.[target.docPath]?.[target.method]) {
        rows.push({ name: target.name, skipped: 'route not present' });
        continue;
      }
      rows.push(await measure(server, target.name, target.request(server, doc)));
    }
    say(`| route | req/s | p50 ms | p99 ms | non-2xx | errors | ratio to ceiling |`);
    say(`|---|---:|---:|---:|---:|---:|---:|`);
    say(`| ${ceiling.name} | ${fmt(ceiling.reqPerSec)} | ${ceiling.p50} | ${ceiling.p99} | ${ceiling.non2xx} | ${ceiling.errors} | 100% |`);
    for (const r of rows) {
      if ('skipped' in r) say(`| ${r.name} | skipped: ${r.skipped} | | | | | |`);
      else say(`| ${r.name} | ${fmt(r.reqPerSec)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} | ${fmt((100 * r.reqPerSec) / ceiling.reqPerSec, 1)}% |`);
    }

    say('');
    say(`fixed rate: ${RATE} req/s (autocannon overallRate), ${SECONDS} s`);
    for (const target of TARGETS.filter((t) => (t.docPath === '/appointments' || t.docPath === '/facilities/{id}') && (!ONLY || ONLY.includes(t.name)))) {
      if (!doc.paths?.[target.docPath]?.[target.method]) {
        say(`- ${target.name}: skipped: route not present`);
        continue;
      }
      const m = await measure(server, target.name, target.request(server, doc), { overallRate: RATE });
      say(`- ${target.name}: ${fmt(m.reqPerSec)} req/s achieved, p50 ${m.p50} ms, p99 ${m.p99} ms, non-2xx ${m.non2xx}, errors ${m.errors}`);
    }
  } finally {
    await server.stop();
    await database?.drop();
  }
  return lines;
}

async function main(): Promise<void> {
  console.log('# bench:api');
  console.log(machine());
  for (const engine of ENGINES) await benchEngine(engine);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

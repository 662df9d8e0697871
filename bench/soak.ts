/**
 * `npm run bench:soak`: memory under a long mixed load.
 *
 * One server process (PostgreSQL when DATABASE_URL is set, else the embedded database),
 * seeded like bench:api with SOAK_ROWS (10,000) rows; autocannon cycles through every route
 * of bench:api present in the live OpenAPI, plus refused requests (unknown route, bad key,
 * invalid id) so the error path is soaked too. The server's resident memory (RSS, from
 * /proc) is printed at start (after a warm-up), every SOAK_SAMPLE_SECONDS, and at the end,
 * with the growth. Target: under 10% growth over 10 minutes.
 *
 * Environment: SOAK_SECONDS (600), SOAK_WARMUP_SECONDS (30, capped at a tenth of the run),
 * SOAK_CONNECTIONS (10), SOAK_RATE (requests per second, 0 = as fast as possible; default 1000),
 * SOAK_ROWS (10000).
 */
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dedicatedDatabase, fmt, machine, run, startBenchServer } from './lib/harness.js';
import { TARGETS } from './lib/targets.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const WARMUP = Math.max(1, Math.min(Number(process.env.SOAK_WARMUP_SECONDS ?? 30), Math.floor(SECONDS / 10)));
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 10);
const RATE = Number(process.env.SOAK_RATE ?? 1000);
const SAMPLE = Number(process.env.SOAK_SAMPLE_SECONDS ?? Math.max(5, Math.round(SECONDS / 10)));

function rssBytes(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1]);
    if (kb) return kb * 1024;
  } catch {
    // not Linux: ps below
  }
  return (
    Number(
      execFileSync('ps', ['-o', 'rss=', '-p', String(pid)])
        .toString()
        .trim(),
    ) * 1024
  );
}

const mib = (b: number) => `${fmt(b / 2 ** 20, 1)} MiB`;

async function main(): Promise<void> {
  console.log('# bench:soak');
  console.log(machine());
  const database = process.env.DATABASE_URL ? await dedicatedDatabase(process.env.DATABASE_URL, 'dcm_soak') : null;
  const server = await startBenchServer({ DATABASE_URL: database?.url, BENCH_ROWS: process.env.SOAK_ROWS ?? '10000' });
  const pid = server.child.pid!;
  try {
    const doc = await (await fetch(`${server.base}/v1/openapi.json`)).json();
    const present = TARGETS.filter((t) => doc.paths?.[t.docPath]?.[t.method]);
    const skipped = TARGETS.filter((t) => !present.includes(t));
    const requests = [
      ...present.map((t) => t.request(server, doc)),
      { method: 'GET', path: '/v1/no-such-route' },
      { method: 'GET', path: '/v1/facilities/not-a-uuid' },
      {
        method: 'GET',
        path: `/v1/facilities/${server.seeded.facilityId}`,
        headers: { authorization: 'Bearer dcm_live_unknownunknownunknownunknownunknownunk' },
      },
    ];
    console.log(`\nengine: ${server.engine}; ${fmt(server.rows)} patients and appointments seeded`);
    console.log(`mixed load: ${present.map((t) => t.name).join(', ')}, plus 404, 400 and 401 requests`);
    if (skipped.length) console.log(`skipped (route not present): ${skipped.map((t) => t.name).join(', ')}`);
    console.log(
      `autocannon: ${CONNECTIONS} connections, ${RATE ? `${RATE} req/s` : 'unthrottled'}, ${SECONDS} s after ${WARMUP} s of warm-up; rate limits raised for the benchmark`,
    );

    const base = {
      url: server.base,
      connections: CONNECTIONS,
      headers: { authorization: `Bearer ${server.seeded.tokens[0]}`, 'content-type': 'application/json' },
      requests,
      ...(RATE ? { overallRate: RATE } : {}),
    };
    const before = rssBytes(pid);
    await run('warm-up', { ...base, duration: WARMUP });
    const start = rssBytes(pid);
    console.log(`\nRSS before load ${mib(before)}; at start (after warm-up) ${mib(start)}`);

    const samples: number[] = [];
    const timer = setInterval(() => {
      const rss = rssBytes(pid);
      samples.push(rss);
      console.log(`  t=${String(samples.length * SAMPLE).padStart(4)} s  RSS ${mib(rss)}`);
    }, SAMPLE * 1000);
    const result = await run('soak', { ...base, duration: SECONDS });
    clearInterval(timer);
    // Let in-flight work and timers settle, then read the end value.
    await new Promise((r) => setTimeout(r, 2000));
    const end = rssBytes(pid);
    const growth = (100 * (end - start)) / start;
    console.log(
      `\n${fmt(result.total)} requests, ${fmt(result.reqPerSec)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, non-2xx ${fmt(result.non2xx)} (the refused ones are on purpose), errors ${result.errors}`,
    );
    console.log(
      `RSS at start ${mib(start)}, at end ${mib(end)}, peak ${mib(Math.max(start, end, ...samples))}: growth ${fmt(growth, 1)}% (target < 10%: ${growth < 10 ? 'met' : 'NOT met'})`,
    );
  } finally {
    await server.stop();
    await database?.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

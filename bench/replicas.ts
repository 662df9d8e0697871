/**
 * Read replicas benchmark: `npm run bench:replicas [-- --seconds=10 --rounds=3 --patients=300 --connections=10]`.
 *
 * Reads per second of lag-tolerant read routes (GET /v1/patients/search and GET /v1/events) with
 * no replica and with one streaming replica, alternated in one run (`--rounds` times each) so the
 * machine's load falls on both alike. A private primary cluster and a `pg_basebackup -R` replica
 * of it are made on free ports (test/helpers/pg-cluster.ts) and removed after; two services run in
 * this process on the same primary, one with DATABASE_REPLICA_URLS and one without, and only the
 * one measured is served. Needs the PostgreSQL binaries (/usr/lib/postgresql/15/bin), not DATABASE_URL.
 *
 * On one machine the replica shares the CPU with the primary and the service: what this shows is
 * the cost or gain of moving the reads' work to another server process, not that of another machine.
 */
import { buildApp } from '../src/app.js';
import { closeContext, createContext } from '../src/bootstrap.js';
import { testConfig } from '../src/config.js';
import type { AppContext } from '../src/context.js';
import { createApiKey, SCOPES } from '../src/modules/auth/index.js';
import { createClinic } from '../src/modules/clinics/index.js';
import { PrivateCluster } from '../test/helpers/pg-cluster.js';
import { freePort } from '../test/helpers/process.js';
import { BENCH_LIMITS } from './lib/constants.js';
import { benchArgs, fmt, machine, run, type Measure } from './lib/harness.js';

const args = benchArgs();
const SECONDS = Number(args.seconds ?? 10);
const ROUNDS = Number(args.rounds ?? 3);
const PATIENTS = Number(args.patients ?? 300);
const CONNECTIONS = Number(args.connections ?? 10);

const ROUTES = [
  { name: 'GET /v1/patients/search?q=rossi', path: '/v1/patients/search?q=rossi' },
  { name: 'GET /v1/events?limit=50', path: '/v1/events?limit=50' },
];

async function served<T>(ctx: AppContext, measure: (url: string) => Promise<T>): Promise<T> {
  const app = await buildApp({ ctx, rateLimits: BENCH_LIMITS, logger: false });
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    return await measure(`http://127.0.0.1:${(app.server.address() as { port: number }).port}`);
  } finally {
    await app.close();
  }
}

const primary = new PrivateCluster(await freePort());
const replica = new PrivateCluster(await freePort());
const contexts: AppContext[] = [];
try {
  console.log(machine());
  primary.init();
  primary.start();
  replica.replicaOf(primary);
  replica.start();
  const config = testConfig({ databaseUrl: primary.url, logLevel: 'silent', seedDemo: false });
  const alone = await createContext(config);
  contexts.push(alone);
  const withReplica = await createContext({ ...config, databaseReplicaUrls: [replica.url] });
  contexts.push(withReplica);

  const clinic = await createClinic(alone.db, { name: 'Bench replicas' });
  const key = await createApiKey(alone.db, clinic.id, { name: 'bench', scopes: [...SCOPES] });
  // Patients through the API (their search terms and their events are written as in use), by a second key:
  // the measured key wrote nothing, so its reads may go to the replica from the start.
  const writer = await createApiKey(alone.db, clinic.id, { name: 'writer', scopes: [...SCOPES] });
  await served(alone, async (url) => {
    const surnames = ['Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Romano', 'Colombo', 'Ricci'];
    for (let i = 0; i < PATIENTS; i++) {
      const res = await fetch(`${url}/v1/patients`, {
        method: 'POST',
        headers: { authorization: `Bearer ${writer.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ firstName: `Nome${i}`, lastName: surnames[i % surnames.length], phone: `+39 333 ${String(1_000_000 + i).slice(1)}` }),
      });
      if (res.status !== 201) throw new Error(`seeding: ${res.status} ${await res.text()}`);
    }
  });
  // Until the replica has every patient and the router knows it.
  await new Promise((r) => setTimeout(r, 1500));
  console.log(
    `\nprimary and one streaming replica on this machine; ${PATIENTS} patients; ${CONNECTIONS} connections, ${SECONDS} s a run, ${ROUNDS} rounds alternated\n`,
  );

  const results = new Map<string, Measure[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, ctx] of [
      ['no replica', alone],
      ['1 replica', withReplica],
    ] as const) {
      for (const route of ROUTES) {
        const m = await served(ctx, (url) =>
          run(`${route.name} / ${label}`, {
            url: url + route.path,
            duration: SECONDS,
            connections: CONNECTIONS,
            headers: { authorization: `Bearer ${key.token}` },
          }),
        );
        if (m.non2xx > 0 || m.errors > 0) throw new Error(`${m.name}: ${m.non2xx} non-2xx, ${m.errors} errors`);
        results.set(m.name, [...(results.get(m.name) ?? []), m]);
        console.log(`  round ${round + 1}  ${m.name.padEnd(52)} ${fmt(m.reqPerSec).padStart(7)} req/s  p50 ${m.p50} ms  p99 ${m.p99} ms`);
      }
    }
  }
  const replicaReads = withReplica.reads.status()[0]!.reads;
  console.log('\nmedian of the rounds (req/s):');
  for (const route of ROUTES) {
    const median = (label: string) => {
      const xs = (results.get(`${route.name} / ${label}`) ?? []).map((m) => m.reqPerSec).sort((a, b) => a - b);
      return xs[Math.floor(xs.length / 2)] ?? NaN;
    };
    console.log(`  ${route.name.padEnd(36)} no replica ${fmt(median('no replica')).padStart(7)}   1 replica ${fmt(median('1 replica')).padStart(7)}`);
  }
  console.log(`\nreads the replica answered: ${fmt(replicaReads)}; lag-tolerant reads the primary took instead: ${fmt(withReplica.reads.primaryReads())}`);
} finally {
  for (const ctx of contexts) await closeContext(ctx);
  replica.remove();
  primary.remove();
}

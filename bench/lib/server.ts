/**
 * The server side of the benchmarks, run as its own process so the load generator does not
 * share its event loop: opens the database (DATABASE_URL, or the embedded one in a fresh
 * temporary folder), applies migrations, seeds (BENCH_ROWS), builds the real app with the
 * ceiling route and listens on a random loopback port. Prints one JSON line `{"ready": …}`
 * on stdout, then serves until SIGTERM.
 * Rate limits: BENCH_LIMITS (constants.ts).
 * `PUT /bench/read-cache` with `{"on": false}` turns the read caches off (as when the change
 * feed is down: every read goes to the database), `{"on": true}` back on.
 * BENCH_SEEDED (bench:api --dataset): the JSON of the clinic to serve (its ids and keys, read
 * by the benchmark from DATABASE_URL, a dataset migrated already): nothing is seeded nor migrated.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { buildApp } from '../../src/app.js';
import { tuneHeap } from '../../src/lib/heap.js';
import { createContext } from '../../src/bootstrap.js';
import { serveUntilSignal } from './serve.js';
import { testConfig } from '../../src/config.js';
import { BENCH_LIMITS, CEILING_PATH } from './constants.js';
import { seedClinic, type Seeded } from './seed.js';

/** A response to answer as is. */
export interface Ceiling {
  status: number;
  contentType: string;
  body: string;
}

async function main(): Promise<void> {
  tuneHeap();
  const rows = Number(process.env.BENCH_ROWS ?? 100_000);
  const databaseUrl = process.env.DATABASE_URL || null;
  const dataDir = databaseUrl ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'dcm-bench-'));
  const config = testConfig({ databaseUrl, dataDir: dataDir ?? './data', dbPoolMax: Number(process.env.DB_POOL_MAX ?? 10), logLevel: 'silent' });
  const given = process.env.BENCH_SEEDED ? (JSON.parse(process.env.BENCH_SEEDED) as Seeded) : null;
  const ctx = await createContext(config, { skipMigrations: given !== null });
  const seedStart = Date.now();
  const seeded = given ?? (await seedClinic(ctx.db, rows, Number(process.env.BENCH_KEYS ?? 4)));
  const seedSeconds = (Date.now() - seedStart) / 1000;

  // The read caches ask the change feed for a token before serving; no token means "read the
  // database", the path of a page nobody read since the last change.
  let readCache = true;
  const token = ctx.changes.token.bind(ctx.changes);
  ctx.changes.token = (table, clinicId) => (readCache ? token(table, clinicId) : null);

  // The ceilings: bare routes answering stored bytes (status, Content-Type, body) with no auth
  // and no database. Slot '' holds GET /facilities/{id}'s bytes; the load benchmark stores
  // each measured route's own response in a slot of its own (PUT) before loading it.
  const ceilings = new Map<string, Ceiling>();
  const app = await buildApp({
    ctx,
    rateLimits: BENCH_LIMITS,
    logger: false,
    extraPublicRoutes: (scope) => {
      const answer = async (request: FastifyRequest<{ Params: { slot?: string } }>, reply: FastifyReply) => {
        const ceiling = ceilings.get(request.params.slot ?? '');
        if (!ceiling) return reply.code(404).send({ error: 'no ceiling in this slot' });
        return reply.code(ceiling.status).type(ceiling.contentType).send(ceiling.body);
      };
      scope.route({ method: ['GET', 'POST'], url: CEILING_PATH, schema: { hide: true }, handler: answer });
      scope.route({ method: ['GET', 'POST'], url: `${CEILING_PATH}/:slot`, schema: { hide: true }, handler: answer });
      // What the resident memory is made of (MiB), for the benchmark's report.
      scope.get('/bench/memory', { schema: { hide: true } }, async () =>
        Object.fromEntries(Object.entries(process.memoryUsage()).map(([k, v]) => [k, Math.round((10 * v) / 2 ** 20) / 10])),
      );
      scope.put('/bench/read-cache', { schema: { hide: true } }, async (request: FastifyRequest<{ Body: { on: boolean } }>, reply) => {
        readCache = request.body.on;
        return reply.code(204).send();
      });
      scope.put(`${CEILING_PATH}/:slot`, { schema: { hide: true } }, async (request: FastifyRequest<{ Params: { slot: string }; Body: Ceiling }>, reply) => {
        ceilings.set(request.params.slot, request.body);
        return reply.code(204).send();
      });
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const facility = await fetch(`http://127.0.0.1:${port}/v1/facilities/${seeded.facilityId}`, { headers: { authorization: `Bearer ${seeded.tokens[0]}` } });
  if (facility.status !== 200) throw new Error(`GET /facilities/{id} answered ${facility.status}: ${await facility.text()}`);
  ceilings.set('', { status: 200, contentType: facility.headers.get('content-type')!, body: await facility.text() });

  serveUntilSignal(app, ctx, dataDir, { port, engine: ctx.database.engine, seeded, rows, seedSeconds });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

/**
 * The server of `bench:search --http`: the real app on a seeded search database (its URL in
 * DATABASE_URL), in a process of its own, so that the benchmark's corpus and its garbage
 * collections are not in the process that answers. Issues a key with `patients:read` for the
 * searched clinic, prints one JSON line `{"ready": {"port", "token"}}`, serves until SIGTERM.
 * BENCH_CLINIC_ID and BENCH_TOKEN (bench:search --dataset --http): the clinic searched and its
 * key, given: no key is added to the dataset.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PerformanceObserver } from 'node:perf_hooks';
import { buildApp } from '../../src/app.js';
import { tuneHeap } from '../../src/lib/heap.js';
import { closeContext, createContext } from '../../src/bootstrap.js';
import { testConfig } from '../../src/config.js';
import { createApiKey } from '../../src/modules/auth/index.js';
import { CLINIC_ID } from './search-seed.js';
import { BENCH_LIMITS } from './constants.js';

const config = testConfig({ databaseUrl: process.env.DATABASE_URL!, logLevel: 'silent' });
tuneHeap();
const ctx = await createContext(config, { skipMigrations: true });
const key = process.env.BENCH_TOKEN
  ? { token: process.env.BENCH_TOKEN }
  : await createApiKey(ctx.db, process.env.BENCH_CLINIC_ID ?? CLINIC_ID, { name: 'bench:search --http', scopes: ['patients:read'] });
const app = await buildApp({ ctx, rateLimits: BENCH_LIMITS, logger: false });
// Where a slow search's time went (bench:search --again): the app's own time and the garbage
// collections of this process while it ran, in a Server-Timing header. GC entries reach the
// observer a moment after the collection, so a pause at a request's very end may count for the next.
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
}).observe({ entryTypes: ['gc'] });
// On the HTTP server (the app is built and ready: it takes no more hooks): from the request's
// arrival to its head's writing.
app.server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
  const start = performance.now();
  const gcAtStart = gcMs;
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    res.setHeader('server-timing', `app;dur=${(performance.now() - start).toFixed(1)}, gc;dur=${(gcMs - gcAtStart).toFixed(1)}`);
    return writeHead(...args);
  }) as typeof res.writeHead;
});
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ ready: { port: (app.server.address() as { port: number }).port, token: key.token } })}\n`);
const stop = async () => {
  await app.close();
  await closeContext(ctx);
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());

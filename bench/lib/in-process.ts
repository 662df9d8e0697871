/**
 * The service in the benchmark's own process, for the benchmarks that seed by SQL and then time
 * requests one after another (bench:stats, bench:confirmations, bench:recalls): a database of its
 * own on PostgreSQL (dropped after) or a PGlite folder (removed after), and the HTTP app on
 * 127.0.0.1 once `serve` is called (closed after). `datasetUrl` (a benchmark's `--dataset`): that
 * database instead, as it is (migrated already, kept after).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { buildApp } from '../../src/app.js';
import { closeContext, createContext } from '../../src/bootstrap.js';
import { testConfig } from '../../src/config.js';
import type { AppContext } from '../../src/context.js';
import { BENCH_LIMITS } from './constants.js';
import { dedicatedDatabase } from './harness.js';

export async function withInProcessService(
  engine: string,
  name: string,
  run: (ctx: AppContext, serve: () => Promise<string>) => Promise<void>,
  datasetUrl?: string,
): Promise<void> {
  const pg = datasetUrl
    ? { url: datasetUrl, drop: async () => {} }
    : engine === 'postgres'
      ? await dedicatedDatabase(process.env.DATABASE_URL!, `bench_${name}`)
      : null;
  const dataDir = pg ? null : fs.mkdtempSync(path.join(os.tmpdir(), `dcm-bench-${name}-`));
  const ctx = await createContext(testConfig({ databaseUrl: pg?.url ?? null, dataDir: dataDir ?? './data', logLevel: 'silent' }), {
    skipMigrations: !!datasetUrl,
  });
  const served: { app?: Awaited<ReturnType<typeof buildApp>> } = {};
  const serve = async () => {
    const app = (served.app = await buildApp({ ctx, rateLimits: BENCH_LIMITS, logger: false }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  };
  try {
    await run(ctx, serve);
  } finally {
    await served.app?.close();
    await closeContext(ctx);
    await pg?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Milliseconds of one request, its body read; a GET without `body`, else a JSON POST. Throws on an answer of 300 or more. */
export async function timedRequest(url: string, token: string, body?: unknown): Promise<number> {
  const t = process.hrtime.bigint();
  const res = await request(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${url}: ${res.statusCode} ${text.slice(0, 300)}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

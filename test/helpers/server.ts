/**
 * A real server for a test file: its own database (copied from the run's migrated
 * template), the real app listening on a random loopback port, and helpers to call it.
 */
import { createClient, type DentalClinicClient } from '../../packages/client/src/index.js';
import type { Actor } from '../../src/core/actor.js';
import { actorEnvironment } from '../../src/context.js';
import { backOfficeActor } from '../../src/modules/clinics/actor.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp, type AppOptions } from '../../src/app.js';
import { closeContext, createContext } from '../../src/bootstrap.js';
import { testConfig, type Config } from '../../src/config.js';
import type { AppContext } from '../../src/context.js';
import type { QueryWatcher } from '../../src/db/database.js';
import type { RateLimits } from '../../src/http/rate-limit/limiter.js';
import type { App } from '../../src/http/types.js';
import { createDemoClinic, type DemoClinic } from '../../src/demo/clinic.js';
import { dedicatedDatabase } from './databases.js';
import { Factories } from './factories.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const ENGINE = process.env.DATABASE_URL ? 'postgres' : 'pglite';

export interface CallOptions {
  token?: string | null;
  body?: unknown;
  /** Sent as is (a Buffer or string), with the given headers only. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestServer {
  url: string;
  app: App;
  ctx: AppContext;
  factories: Factories;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<CallResult<T>>;
  admin<T = any>(method: string, path: string, body?: unknown): Promise<CallResult<T>>;
  /**
   * A typed client of /v1 for a key: the project's own client package, so a test's calls and
   * answers are typed by the generated OpenAPI types instead of `any`. No retries: a test sees
   * every answer. Errors throw `ApiClientError` (status, code, details); `.raw` returns them.
   */
  api(token: string): DentalClinicClient;
  /** The back office's actor for a clinic, for tests that call services directly. */
  actor(clinicId: string): Promise<Actor>;
  close(): Promise<void>;
}

/** Opens a fresh database for one test file (or one test). */
export async function openTestContext(config: Config, onQuery?: QueryWatcher): Promise<{ ctx: AppContext; drop: () => Promise<void> }> {
  const baseUrl = process.env.DATABASE_URL;
  if (baseUrl) {
    // Named after the run, so the global teardown drops what a crashed file left.
    const database = await dedicatedDatabase(baseUrl, `dcm_t_${process.env.DCM_TEST_RUN}`, process.env.DCM_TEST_TEMPLATE);
    // DB_PREPARE_AFTER: 1 under the tests (global-setup.ts), so marked statements run prepared.
    const dbPrepareAfter = Number(process.env.DB_PREPARE_AFTER ?? config.dbPrepareAfter);
    // DB_WIRE_SPEEDUPS=off: the same tests over `pg`'s plain protocol (.ci/run runs the write paths so).
    const dbWireSpeedUps = process.env.DB_WIRE_SPEEDUPS === undefined ? config.dbWireSpeedUps : !/^(0|false|off|no)$/i.test(process.env.DB_WIRE_SPEEDUPS);
    const ctx = await createContext({ ...config, databaseUrl: database.url, dbPrepareAfter, dbWireSpeedUps }, { skipMigrations: true, onQuery });
    return {
      ctx,
      drop: async () => {
        await closeContext(ctx);
        await database.drop();
      },
    };
  }
  const snapshot = process.env.DCM_TEST_SNAPSHOT ? new Blob([fs.readFileSync(process.env.DCM_TEST_SNAPSHOT)]) : undefined;
  const ctx = await createContext({ ...config, databaseUrl: null }, { inMemory: true, pgliteSnapshot: snapshot, skipMigrations: !!snapshot, onQuery });
  return { ctx, drop: () => closeContext(ctx) };
}

interface StartOptions {
  config?: Partial<Config>;
  /** Generous limits for files that make many requests with one key; the spec's otherwise. */
  rateLimits?: RateLimits;
  appOptions?: Partial<AppOptions>;
  /** Sees every statement the server's database handle runs (test/db/plans.test.ts). */
  onQuery?: QueryWatcher;
  /** Opens the context instead of openTestContext (a test's own PostgreSQL cluster: test/db/replicas.test.ts). */
  open?: (config: Config) => Promise<{ ctx: AppContext; drop: () => Promise<void> }>;
}

/** Limits large enough that set-up traffic is never refused (rate limiting has its own tests). */
export const ROOMY_LIMITS: RateLimits = {
  clinicPer10s: 1_000_000,
  clinicPerDay: 10_000_000,
  keyPer10s: 1_000_000,
  keyPerDay: 10_000_000,
  authFailuresPerMinute: 1_000_000,
  filesPerMinute: 1_000_000,
};

export async function startTestServer(options: StartOptions = {}): Promise<TestServer> {
  // Documents' bytes go to a folder of this server alone (never the working tree), removed on close.
  const documentDir = options.config?.documents ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'dcm-documents-'));
  const base = testConfig();
  const config = testConfig({
    adminToken: ADMIN_TOKEN,
    port: 0,
    ...(documentDir ? { documents: { ...base.documents, dir: documentDir } } : {}),
    ...options.config,
  });
  const { ctx, drop } = await (options.open ? options.open(config) : openTestContext(config, options.onQuery));
  const app = await buildApp({ ctx, rateLimits: options.rateLimits ?? ROOMY_LIMITS, logger: false, ...options.appOptions });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : '';

  const call = async (method: string, path: string, opts: CallOptions = {}): Promise<CallResult> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | Buffer | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(url + path, { method, headers, body: body as BodyInit | undefined });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };

  const server: TestServer = {
    url,
    app,
    ctx,
    factories: undefined as unknown as Factories,
    call,
    admin: (method, path, body) => call(method, path, { token: ADMIN_TOKEN, body }),
    api: (token) => createClient({ baseUrl: `${url}/v1`, apiKey: token, retry: false }),
    actor: (clinicId) => backOfficeActor(ctx.db, clinicId, actorEnvironment(ctx), 'test', app.log),
    async close() {
      await app.close();
      await drop();
      if (documentDir) fs.rmSync(documentDir, { recursive: true, force: true });
    },
  };
  server.factories = new Factories(server);
  return server;
}

/** A test server with the demo clinic in it (its keys, calendars and agenda), as `npm run demo` seeds it. */
export async function startDemoServer(options: StartOptions = {}): Promise<{ server: TestServer; demo: DemoClinic }> {
  const server = await startTestServer(options);
  try {
    return { server, demo: await createDemoClinic(server.ctx.db) };
  } catch (error) {
    await server.close();
    throw error;
  }
}

/**
 * Where the CLI's calls go, in this order:
 *   1. DCM_URL set: the service at that URL (its back office, with ADMIN_TOKEN).
 *   2. The embedded database with a service running on DATA_DIR: that service, found through
 *      DATA_DIR/dcm.server.json (src/db/server-file.ts). The folder is locked by the service,
 *      so this is the only way in while `npm start` runs.
 *   3. Otherwise the database itself (DATABASE_URL, or the embedded one in DATA_DIR), opened
 *      by the CLI, the routes run in-process.
 */
import type { AppContext } from '../context.js';
import { httpAdminApi, inProcessAdminApi, operationsOf, type AdminApi, type AdminOperation } from './admin-api.js';
import { isLoopback, redactUrl } from './credentials.js';
import { UsageError } from './output.js';

export interface Connection {
  api: AdminApi;
  /** The database, when the CLI opened it itself (commands that need it: migrate). */
  ctx: AppContext | null;
  close(): Promise<void>;
}

async function config() {
  const { ConfigError, loadConfig } = await import('../config.js');
  try {
    return loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * DCM_URL checked before ADMIN_TOKEN is sent to it: the service's base URL (no query or
 * fragment) as `base`, never a user name or password (the back office takes ADMIN_TOKEN alone),
 * and plain http:// only to a loopback address, where no network sits between the two.
 */
function serviceBase(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Not quoted: what is not a URL cannot be trusted to hide its secrets.
    throw new UsageError('DCM_URL is not a URL: give the service’s base URL, as https://dcm.example.com');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`DCM_URL must be an https:// URL, got one of "${url.protocol}"`);
  const shown = redactUrl(raw);
  if (url.username || url.password) throw new UsageError(`DCM_URL must not hold a user name or password (the back office takes ADMIN_TOKEN), got "${shown}"`);
  if (url.search || url.hash) throw new UsageError(`DCM_URL must be the service's base URL, without a query or fragment, got "${shown}"`);
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new UsageError(
      `refusing to send ADMIN_TOKEN over plain http:// to ${url.host}: use https://, or http:// only to this machine (localhost, 127.0.0.0/8, ::1)`,
    );
  }
  return url.toString().replace(/\/+$/, '');
}

export async function connect(): Promise<Connection> {
  const url = process.env.DCM_URL;
  if (url) {
    const token = process.env.ADMIN_TOKEN;
    if (!token) throw new UsageError('DCM_URL is set but ADMIN_TOKEN is not: the back office of the service needs its token');
    return { api: await httpAdminApi(serviceBase(url), token), ctx: null, close: async () => {} };
  }
  const cfg = await config();
  if (!cfg.databaseUrl) {
    const { findRunningServer } = await import('../db/server-file.js');
    const running = findRunningServer(cfg.dataDir);
    if (running) return { api: await httpAdminApi(running.adminUrl, running.token), ctx: null, close: async () => {} };
  }
  // The embedded database starts first, and the modules of the context and of the routes load
  // while it opens (as in src/main.ts); a failure is handled where createContext awaits it.
  const pglite = cfg.databaseUrl ? undefined : import('../db/pglite-start.js').then((m) => m.startPGlite(cfg.dataDir));
  pglite?.catch(() => {});
  import('../app.js').catch(() => {}); // inProcessAdminApi's, loading meanwhile
  const { closeContext, createContext } = await import('../bootstrap.js');
  const ctx = await createContext(cfg, { pglite });
  try {
    const api = await inProcessAdminApi(ctx, cfg.databaseUrl ? 'the PostgreSQL database of DATABASE_URL' : `the embedded database in ${cfg.dataDir}`);
    return {
      api,
      ctx,
      async close() {
        await api.close();
        await closeContext(ctx);
      },
    };
  } catch (error) {
    await closeContext(ctx);
    throw error;
  }
}

/** The operations, read from routes built without a database (building touches none): for --help. */
export async function offlineOperations(): Promise<AdminOperation[]> {
  const [{ buildApp }, { testConfig }, { Authenticator }, { offlineDocumentsRuntime }, { primaryOnly }] = await Promise.all([
    import('../app.js'),
    import('../config.js'),
    import('../modules/auth/index.js'),
    import('../modules/documents/index.js'),
    import('../db/replicas.js'),
  ]);
  const token = 'offline-operations-listing';
  const config = testConfig();
  const ctx = {
    config: { ...config, adminToken: token, adminPort: null, logLevel: 'silent' },
    documents: offlineDocumentsRuntime(config.documents),
    database: null,
    db: null,
    reads: primaryOnly(null as never),
    authenticator: new Authenticator(null as never),
    cursorSecret: '',
  } as unknown as AppContext;
  const app = await buildApp({ ctx, logger: false });
  try {
    return operationsOf((await app.inject({ method: 'GET', url: '/admin/v1/openapi.json', headers: { authorization: `Bearer ${token}` } })).json());
  } finally {
    await app.close();
  }
}

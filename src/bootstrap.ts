/** Opens the database, applies migrations and assembles what services need. */
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { ChangeFeed } from './db/change-feed.js';
import { EVENT_DATA_SCHEMAS } from './event-schemas.js';
import { useEventSchemas } from './events/validate.js';
import { openDatabase, type QueryWatcher } from './db/database.js';
import type { StartedPGlite } from './db/pglite-start.js';
import { migrate } from './db/migrate.js';
import { openReplicas } from './db/replicas.js';
import { serverSecret } from './lib/server-secret.js';
import { AccessLogWriter } from './modules/access-log/index.js';
import { Authenticator } from './modules/auth/index.js';
import { createDocumentsRuntime } from './modules/documents/index.js';

interface ContextOptions {
  /** Keep the embedded database in memory instead of DATA_DIR (tests). */
  inMemory?: boolean;
  pgliteSnapshot?: Blob;
  /** Skip migrations (the snapshot already has them). */
  skipMigrations?: boolean;
  /** The embedded database's start in DATA_DIR, already under way (src/main.ts). */
  pglite?: Promise<StartedPGlite>;
  /** Sees every statement the service runs (bench:plans and its test). */
  onQuery?: QueryWatcher;
}

export async function createContext(config: Config, options: ContextOptions = {}): Promise<AppContext> {
  // The outbox checks each event's data against its type's schema under the tests (DCM_STRICT_EVENTS).
  useEventSchemas(EVENT_DATA_SCHEMAS);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    dataDir: options.inMemory ? null : config.dataDir,
    poolMax: config.dbPoolMax,
    prepareAfter: config.dbPrepareAfter,
    wireSpeedUps: config.dbWireSpeedUps,
    pgliteSnapshot: options.pgliteSnapshot,
    pglite: options.pglite,
    onQuery: options.onQuery,
  });
  try {
    if (!options.skipMigrations) await migrate(database);
    const cursorSecret = await serverSecret(database.db, 'cursor_secret');
    const documents = await createDocumentsRuntime(config.documents, database.db);
    const changes = await ChangeFeed.start(database);
    const reads = await openReplicas({
      primary: database.db,
      urls: config.databaseReplicaUrls,
      maxLagMs: config.replicaMaxLagMs,
      connectTimeoutMs: config.replicaConnectTimeoutMs,
      statementTimeoutMs: config.replicaStatementTimeoutMs,
      poolMax: config.dbPoolMax,
      prepareAfter: config.dbPrepareAfter,
      wireSpeedUps: config.dbWireSpeedUps,
    });
    return {
      config,
      database,
      db: database.db,
      reads,
      authenticator: new Authenticator(database.db, changes),
      changes,
      accessLog: new AccessLogWriter(database.db),
      cursorSecret,
      documents,
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}

/** Closes what createContext opened: the access log's last entries are written before the database goes. */
export async function closeContext(ctx: AppContext): Promise<void> {
  try {
    await ctx.changes.close();
    await ctx.accessLog.close();
    await ctx.documents.store.close();
    await ctx.reads.close();
  } finally {
    await ctx.database.close();
  }
}

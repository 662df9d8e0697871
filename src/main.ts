/**
 * Entry point: config -> database -> app -> worker -> graceful shutdown.
 * `--role=api` serves HTTP only, `--role=worker` runs deliveries and periodic jobs only;
 * the default runs both in one process.
 */
import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig, type Config, type ProcessRole } from './config.js';
import { DataFolderLockedError } from './db/data-folder-lock.js';
import type { Running } from './jobs/scheduler.js';
import { checkDocumentFolder } from './modules/documents/index.js';
import { describeStartupError } from './startup-errors.js';
import { tuneHeap } from './lib/heap.js';

/** A start-up refusal: one line on stderr (`error: …`, no stack) and the exit code. */
function refuse(message: string, code: number): never {
  console.error(`error: ${message}`);
  process.exit(code);
}

function parseRole(argv: string[]): ProcessRole {
  const arg = argv.find((a) => a.startsWith('--role='));
  const role = arg ? arg.slice('--role='.length) : 'all';
  if (role !== 'all' && role !== 'api' && role !== 'worker') refuse(`unknown --role "${role}": use api, worker or leave it out for both`, 2);
  return role;
}

async function main(): Promise<void> {
  tuneHeap();
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) refuse(error.message, 2);
    throw error;
  }
  started = config;
  const role = parseRole(process.argv.slice(2));
  // The embedded database is one process's alone: an API without the worker in it would take
  // webhooks that nothing ever delivers, and a worker alone would serve nothing.
  if (role !== 'all' && !config.databaseUrl)
    refuse(
      `--role=${role} needs PostgreSQL (DATABASE_URL): on the embedded database one process holds the data folder, so run the API and the worker together with npm start`,
      2,
    );
  // On the embedded database the CLI cannot open the locked folder: it calls this process's back
  // office instead (src/db/server-file.ts), with ADMIN_TOKEN or, when unset, a token made up now.
  const embedded = !config.databaseUrl;
  if (embedded && role !== 'worker' && config.adminToken === null) config = { ...config, adminToken: randomBytes(32).toString('base64url') };

  // Before anything opens or is written: the documents' folder is not where `git add` takes it.
  if (config.documents.storage === 'fs') await checkDocumentFolder(config.documents.dir, config.documents.allowInWorktree);

  // The embedded database starts first, and the rest of the service's modules load while it
  // opens (start-up time: README, "Quick start"); createContext takes it over. Its failure (the
  // folder in use) is handled where createContext awaits it, not as an unhandled rejection.
  const pglite = embedded ? import('./db/pglite-start.js').then((m) => m.startPGlite(config.dataDir)) : undefined;
  pglite?.catch(() => {});
  const appModule = role === 'worker' ? null : import('./app.js');
  const [
    { closeContext, createContext },
    { pino },
    { announceServer },
    { allJobs },
    { startScheduler },
    { printFirstSteps, seedDemoClinic },
    { loggerOptions },
    { startDeliveryWorker },
  ] = await Promise.all([
    import('./bootstrap.js'),
    import('pino'),
    import('./db/server-file.js'),
    import('./jobs/index.js'),
    import('./jobs/scheduler.js'),
    import('./demo/clinic.js'),
    import('./lib/logger.js'),
    import('./modules/webhooks/index.js'),
  ]);
  let ctx;
  try {
    ctx = await createContext(config, { pglite });
  } catch (error) {
    if (error instanceof DataFolderLockedError) refuse(error.message, 3);
    throw error;
  }

  // The worker role builds no HTTP app (nor loads it): it logs through its own pino logger.
  const http = appModule ? await (await appModule).createHttpService(ctx) : null;
  const log = http?.app.log ?? pino(loggerOptions(config));

  if (config.webhookAllowInsecure) {
    log.warn('WEBHOOK_ALLOW_INSECURE is on: webhooks may target http:// and loopback addresses. Development only.');
  }
  if (role !== 'worker' && config.seedDemo && !config.databaseUrl) {
    await seedDemoClinic(ctx.db, { port: config.port, host: config.host, print: (line) => console.log(line) });
  }
  if (role !== 'worker' && config.databaseUrl) await printFirstSteps(ctx.db, (line) => console.log(line));

  // Listening first: the worker's first round and every job's first run (at once, on the same
  // thread as the embedded database) would otherwise come before the port opens.
  await http?.listen();
  const background: Running[] = [];
  if (role !== 'api') {
    background.push(await startDeliveryWorker(ctx, { onError: (err) => log.error({ err }, 'webhook worker') }));
    background.push(startScheduler(ctx, allJobs(), (msg, err) => log.error({ err }, msg)));
  }
  const unannounce = http && embedded ? announceServer(config.dataDir, { adminUrl: http.adminUrl(), token: config.adminToken! }) : null;
  log.info({ role, database: ctx.database.engine }, 'started');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing requests in flight');
    const force = setTimeout(() => {
      log.error('shutdown grace period over; exiting');
      process.exit(1);
    }, config.shutdownGraceMs);
    force.unref();
    unannounce?.();
    await http?.close(); // stops accepting, waits for requests in flight
    await Promise.all(background.map((b) => b.stop()));
    await closeContext(ctx);
    clearTimeout(force);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

let started: Config | null = null;
main().catch((error) => {
  // A value found wrong only once the service looked at it (DOCUMENT_DIR inside a git work tree: checkDocumentFolder).
  if (error instanceof ConfigError) refuse(error.message, 2);
  const line = started ? describeStartupError(error, started) : null;
  // Anything else is a bug: its stack helps whoever fixes it.
  if (line === null) console.error(error);
  else refuse(line, 1);
  process.exit(1);
});

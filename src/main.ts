/**
 * Entry point: config -> database -> app -> worker -> graceful shutdown.
 * `--role=api` serves HTTP only, `--role=worker` runs deliveries and periodic jobs only;
 * the default runs both in one process.
 */
import type { FastifyBaseLogger } from 'fastify';
import { buildApp } from './app.js';
import { listenAdmin, type AdminListener } from './http/admin-listener.js';
import { closeContext, createContext } from './bootstrap.js';
import { ConfigError, loadConfig, type Config, type ProcessRole } from './config.js';
import { DataFolderLockedError } from './db/database.js';
import { connectRedis, MemoryCounterStore, RateLimiter, RedisCounterStore } from './http/rate-limit/limiter.js';
import { allJobs } from './jobs/index.js';
import { startScheduler, type Running } from './jobs/scheduler.js';
import { seedDemoClinic } from './modules/clinics/demo.js';
import { startDeliveryWorker } from './webhooks/worker.js';

function parseRole(argv: string[]): ProcessRole {
  const arg = argv.find((a) => a.startsWith('--role='));
  const role = arg ? arg.slice('--role='.length) : 'all';
  if (role !== 'all' && role !== 'api' && role !== 'worker') {
    console.error(`Unknown --role "${role}": use api, worker or leave it out for both.`);
    process.exit(2);
  }
  return role;
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const role = parseRole(process.argv.slice(2));

  let ctx;
  try {
    ctx = await createContext(config);
  } catch (error) {
    if (error instanceof DataFolderLockedError) {
      console.error(error.message);
      process.exit(3);
    }
    throw error;
  }

  // Redis may come and go while the process runs: /v1 answers 503 meanwhile (src/http/rate-limit/limiter.ts).
  // Its events can come before the app's logger exists: they are then written to stderr.
  let appLog: FastifyBaseLogger | null = null;
  const redis = config.redisUrl
    ? connectRedis(config.redisUrl, {
        onUp: () => appLog?.info('Redis connected'),
        onDown: (err) => {
          const msg = 'Redis unreachable: /v1 requests answer 503 unavailable until it is back';
          if (appLog) appLog.error({ err }, msg);
          else console.error(msg, err);
        },
      })
    : null;
  const limiter = new RateLimiter(redis ? new RedisCounterStore(redis) : new MemoryCounterStore());
  const app = await buildApp({ ctx, limiter });
  const log = app.log;
  appLog = log;

  if (config.webhookAllowInsecure) {
    log.warn('WEBHOOK_ALLOW_INSECURE is on: webhooks may target http:// and loopback addresses. Development only.');
  }
  if (role !== 'worker' && config.seedDemo && !config.databaseUrl) {
    await seedDemoClinic(ctx.db, { port: config.port, host: config.host, print: (line) => console.log(line) });
  }

  const background: Running[] = [];
  if (role !== 'api') {
    background.push(await startDeliveryWorker(ctx, { onError: (err) => log.error({ err }, 'webhook worker') }));
    background.push(startScheduler(ctx, allJobs(), (msg, err) => log.error({ err }, msg)));
  }
  let adminListener: AdminListener | null = null;
  if (role !== 'worker') {
    await app.listen({ port: config.port, host: config.host });
    if (config.adminPort !== null) {
      adminListener = await listenAdmin(app, config.adminHost, config.adminPort);
      log.info({ host: config.adminHost, port: adminListener.port }, 'back office and /metrics listening on their own port');
    }
  }
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
    await adminListener?.close();
    await app.close(); // stops accepting, waits for requests in flight
    await Promise.all(background.map((b) => b.stop()));
    await closeContext(ctx);
    clearTimeout(force);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

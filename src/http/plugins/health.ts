/**
 * Liveness and readiness for orchestrators. Ready means every service a request needs answers:
 * the database (`SELECT 1`) and, when set, Redis (the rate-limit counters). Not ready is `503`
 * until they answer again; nothing restarts anything, the connections come back by themselves.
 * The answer names neither the engine nor the failing service (it is public): the log does.
 */
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../../context.js';
import type { RateLimiter } from '../rate-limit/limiter.js';

/** A database slower than this is not ready (PGlite queues the probe behind the running transaction). */
const READY_TIMEOUT_MS = 2000;

export function registerHealth(app: FastifyInstance, ctx: AppContext, limiter: RateLimiter): void {
  let wasReady = true;
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        Promise.all([sql`SELECT 1`.execute(ctx.db), limiter.ping()]),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
        }),
      ]);
      if (!wasReady) request.log.info('ready again');
      wasReady = true;
      return { status: 'ready' };
    } catch (error) {
      if (wasReady) request.log.warn({ err: error }, 'not ready');
      wasReady = false;
      return reply.status(503).send({ status: 'unavailable' });
    } finally {
      clearTimeout(timer);
    }
  });
}

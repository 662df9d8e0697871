/** Liveness and readiness for orchestrators. */
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../../context.js';

export function registerHealth(app: FastifyInstance, ctx: AppContext): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await Promise.race([
        sql`SELECT 1`.execute(ctx.db),
        new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
      ]);
      return { status: 'ready', database: ctx.database.engine };
    } catch {
      return reply.status(503).send({ status: 'unavailable', database: ctx.database.engine });
    }
  });
}

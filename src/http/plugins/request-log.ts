/**
 * One log line per request, when its answer is sent: method, route (the pattern, never the
 * URL: a query may hold a name or a phone), status, duration, clinic and request id. Never a
 * header (keys, tokens), a body or a query value. Fastify's own two lines per request are off
 * (disableRequestLogging in src/app.ts).
 */
import type { FastifyInstance } from 'fastify';

export function registerRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    const params = request.params as { clinicId?: unknown } | undefined;
    const clinicId = request.actor?.clinicId ?? (typeof params?.clinicId === 'string' ? params.clinicId : null);
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? null,
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
        clinicId,
        requestId: request.id,
      },
      'request',
    );
  });
}

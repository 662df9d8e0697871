/** Prometheus metrics at GET /metrics (admin plane): request rate and latency by route, rate-limit refusals. */
import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface HttpMetrics {
  registry: Registry;
  rateLimited: Counter;
}

export function createMetrics(): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const rateLimited = new Counter({
    name: 'dcm_rate_limited_total',
    help: 'Requests refused with 429 rate_limited',
    registers: [registry],
  });
  return { registry, rateLimited };
}

export function registerMetrics(app: FastifyInstance, metrics: HttpMetrics): void {
  const requests = new Counter({
    name: 'dcm_http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [metrics.registry],
  });
  const duration = new Histogram({
    name: 'dcm_http_request_duration_seconds',
    help: 'HTTP request duration by route and method',
    labelNames: ['route', 'method'],
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [metrics.registry],
  });

  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, not the URL: ids must not explode the label set.
    const route = request.routeOptions.url ?? 'unknown';
    requests.inc({ route, method: request.method, status: reply.statusCode });
    duration.observe({ route, method: request.method }, reply.elapsedTime / 1000);
  });
}

/** GET /metrics, on the admin plane: the series name every route and show traffic, not for the public. */
export function registerMetricsRoute(scope: FastifyInstance, metrics: HttpMetrics): void {
  scope.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}

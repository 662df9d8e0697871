/**
 * buildApp: plugins, then routes. No listen: tests build it and listen on a random port.
 * Order of a /v1 request: request id -> repeated headers (onRequest, src/http/plugins/input.ts)
 * -> auth + rate limit + scopes (onRequest) -> body
 * parsing -> validation -> idempotency (preHandler) -> handler -> response schema.
 */
import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyReply, type FastifyServerOptions } from 'fastify';
import type { AppContext } from './context.js';
import { ApiError, errorEnvelope } from './http/errors.js';
import { registerAdminAuth } from './http/plugins/admin-auth.js';
import { registerCaller } from './http/plugins/caller.js';
import { registerErrorHandling } from './http/plugins/errors.js';
import { registerHealth } from './http/plugins/health.js';
import { registerIdempotency } from './http/plugins/idempotency.js';
import { registerInputChecks } from './http/plugins/input.js';
import { createMetrics, registerMetrics, type HttpMetrics } from './http/plugins/metrics.js';
import { registerOpenApi } from './http/plugins/openapi.js';
import { MemoryCounterStore, RateLimiter, SPEC_RATE_LIMITS, type RateLimits } from './http/rate-limit/limiter.js';
import { registerAdminRoutes } from './http/routes/admin/index.js';
import { registerV1Routes } from './http/routes/v1/index.js';
import type { App } from './http/types.js';
import { validatorCompiler } from './http/validation.js';
import { registerDeliveryMetrics } from './webhooks/metrics.js';

export interface AppOptions {
  ctx: AppContext;
  /** Shared counters (Redis) when scaled out; memory by default. */
  limiter?: RateLimiter;
  /** Spec 8 unless a test needs room for bulk set-up. */
  rateLimits?: RateLimits;
  metrics?: HttpMetrics;
  logger?: FastifyServerOptions['logger'];
  /** More /v1 routes, registered like the real ones (tests of shared mechanisms). */
  extraRoutes?: (app: App, ctx: AppContext) => void;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
export async function buildApp(options: AppOptions): Promise<App> {
  const { ctx } = options;
  const limiter = options.limiter ?? new RateLimiter(new MemoryCounterStore());
  const metrics = options.metrics ?? createMetrics();

  const app = Fastify({
    logger: options.logger ?? { level: ctx.config.logLevel, redact: ['req.headers.authorization'] },
    bodyLimit: ctx.config.bodyLimitBytes,
    trustProxy: ctx.config.trustProxy,
    // Accept a caller's request id when it is a safe token, so traces join up; otherwise make one.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `req_${randomUUID()}`;
    },
    ajv: { customOptions: { allErrors: true } },
    routerOptions: { maxParamLength: 500 },
    // A URL the router cannot decode (`%ff`, a lone `%`) or a path parameter over 500
    // characters is refused before any hook runs; without this Fastify answers with its own
    // body and no X-Request-Id (found by test/proof/fuzz.test.ts).
    frameworkErrors: (error, request, reply) => {
      const apiError = error.code === 'FST_ERR_ASYNC_CONSTRAINT'
        ? new ApiError('internal_error')
        : ApiError.invalid('path', [{ path: '', message: error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'parametro troppo lungo' : 'indirizzo non valido' }]);
      void (reply as FastifyReply)
        .status(apiError.status)
        .header('x-request-id', request.id)
        .type('application/json; charset=utf-8')
        .send(errorEnvelope(apiError, request.id));
    },
    // A request Node's parser refuses (a URL or headers over 16 KB, broken HTTP) never reaches
    // Fastify's hooks either: answer it with the envelope too, then close.
    clientErrorHandler: (error, socket) => {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
      const requestId = `req_${randomUUID()}`;
      const message = code === 'HPE_HEADER_OVERFLOW' ? 'indirizzo o intestazioni oltre il limite di 16 KB' : 'richiesta HTTP non valida';
      const body = JSON.stringify(errorEnvelope(ApiError.invalid('header', [{ path: '', message }]), requestId));
      socket.end(
        `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  app.setValidatorCompiler(validatorCompiler);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  registerInputChecks(app);
  app.addHook('onClose', async () => limiter.close());

  registerErrorHandling(app, ctx.config.bodyLimitBytes);
  registerMetrics(app, metrics);
  registerDeliveryMetrics(metrics.registry, ctx.db);
  registerHealth(app, ctx);
  registerCaller(app, {
    authenticator: ctx.authenticator,
    limiter,
    limits: options.rateLimits ?? SPEC_RATE_LIMITS,
    onRateLimited: () => metrics.rateLimited.inc(),
  });
  registerAdminAuth(app, ctx.config.adminToken);
  registerIdempotency(app, ctx.db);
  await registerOpenApi(app);

  await app.register(async (v1) => {
    registerV1Routes(v1 as unknown as App, ctx);
    options.extraRoutes?.(v1 as unknown as App, ctx);
  });
  await app.register(async (admin) => registerAdminRoutes(admin as unknown as App, ctx));
  await app.ready();
  return app;
}

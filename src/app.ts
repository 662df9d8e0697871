/**
 * buildApp: plugins, then the planes with their routes. No listen: tests build it and listen
 * on a random port. Every route sits in a plane (src/http/planes.ts) whose gate it gets.
 * Order of a /v1 request: request id -> repeated headers (onRequest, src/http/plugins/input.ts)
 * -> auth + rate limit + scopes (the v1 plane's onRequest) -> body parsing -> validation
 * -> idempotency (preHandler) -> handler -> response schema.
 */
import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyReply, type FastifyServerOptions } from 'fastify';
import { actorEnvironment, type AppContext } from './context.js';
import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from './core/errors.js';
import { errorEnvelope } from './http/errors.js';
import { listenAdmin, type AdminListener } from './http/admin-listener.js';
import { adminGate } from './http/plugins/admin-auth.js';
import { publicGate, v1Gate } from './http/plugins/caller.js';
import { allowedMethodsOf, notFoundOrWrongMethod, registerLocation } from './http/method-not-allowed.js';
import { registerErrorHandling } from './http/plugins/errors.js';
import { registerRequestLog } from './http/plugins/request-log.js';
import { loggerOptions } from './lib/logger.js';
import { registerHealth } from './http/plugins/health.js';
import { registerIdempotency } from './http/plugins/idempotency.js';
import { registerToolCallLedger } from './http/plugins/tool-calls.js';
import { createMetrics, registerMetrics, registerMetricsRoute, type HttpMetrics } from './http/plugins/metrics.js';
import { registerAdminDoc, registerOpenApi, registerPublicDocs } from './http/plugins/openapi.js';
import { listenerConstraint, registerPlane, requirePlanes } from './http/planes.js';
import { connectRedis, MemoryCounterStore, RateLimiter, RedisCounterStore, SPEC_RATE_LIMITS, type RateLimits } from './http/rate-limit/limiter.js';
import { registerInputChecks } from './http/plugins/input.js';
import { registerAdminRoutes } from './http/routes/admin/index.js';
import { registerV1Routes } from './http/routes/v1/index.js';
import { registerMcpDiscovery, registerMcpRoutes } from './http/routes/mcp.js';
import { checkToolOperations } from './http/routes/agent-perform.js';
import { registerFileRoutes, signedLinkGate } from './http/routes/files.js';
import type { App } from './http/types.js';
import { validatorCompiler } from './http/validation.js';
import { LazySchemas } from './http/lazy-schemas.js';
import { answerAndClose, answerClientError, rawErrorAnswer } from './http/client-error.js';
import { capConnectionsPerAddress, serverTimeouts } from './http/connections.js';
import { registerDeliveryMetrics } from './modules/webhooks/index.js';
import { registerReplicaMetrics, registerWriteMarks } from './http/plugins/replicas.js';

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
  /** More routes on the public plane, with no gate at all (the benchmarks' bare ceiling route). */
  extraPublicRoutes?: (app: App) => void;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** The router's options (the 405 matcher of src/http/method-not-allowed.ts uses the same). */
const ROUTER_OPTIONS = { maxParamLength: 500 };
/** Each app's schemas not compiled yet (src/http/lazy-schemas.ts). */
const lazySchemas = new WeakMap<App, LazySchemas>();

/** Compiles the schemas of `app`'s routes that no request has needed yet (after listening; tests). */
export function compileAllSchemas(app: App): Promise<void> {
  return lazySchemas.get(app)?.compileAll() ?? Promise.resolve();
}

/** How many of `app`'s validators and serializers no request has needed yet. */
export function uncompiledSchemas(app: App): number {
  return lazySchemas.get(app)?.uncompiled ?? 0;
}

export async function buildApp(options: AppOptions): Promise<App> {
  const { ctx } = options;
  const limiter = options.limiter ?? new RateLimiter(new MemoryCounterStore());
  const metrics = options.metrics ?? createMetrics();
  // Validators and serializers are compiled on a route's first use, not here (start-up time).
  const schemas = new LazySchemas();

  const app = Fastify({
    logger: options.logger ?? loggerOptions(ctx.config),
    // One line per request instead of Fastify's two: src/http/plugins/request-log.ts.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: ctx.config.bodyLimitBytes,
    // Slow clients cannot hold sockets: header, request and idle timers (src/http/connections.ts).
    ...serverTimeouts(ctx.config.connections),
    trustProxy: ctx.config.trustProxy,
    // Accept a caller's request id when it is a safe token, so traces join up; otherwise make one.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `req_${randomUUID()}`;
    },
    ajv: { customOptions: { allErrors: true } },
    schemaController: { compilersFactory: { buildSerializer: schemas.serializerFactory() } },
    routerOptions: {
      ...ROUTER_OPTIONS,
      // With a back-office listener of its own, the router tells the two listeners apart.
      ...(ctx.config.adminPort !== null ? { constraints: { listener: listenerConstraint } } : {}),
    },
    // A URL the router cannot decode (`%ff`, a lone `%`) or a path parameter over 500
    // characters is refused before any hook runs; without this Fastify answers with its own
    // body and no X-Request-Id (found by test/proof/fuzz.test.ts).
    frameworkErrors: (error, request, reply) => {
      const apiError =
        error.code === 'FST_ERR_ASYNC_CONSTRAINT'
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
    clientErrorHandler: answerClientError,
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  const tooMany = new ApiError('unavailable', null, 'Troppe connessioni aperte da questo indirizzo: chiudine qualcuna e riprova.');
  capConnectionsPerAddress(app.server, ctx.config.connections.maxPerAddress, (socket) => answerAndClose(socket, rawErrorAnswer(tooMany)));
  app.setValidatorCompiler(schemas.validator(validatorCompiler));
  lazySchemas.set(app, schemas);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  registerInputChecks(app);
  registerRequestLog(app);
  app.addHook('onClose', async () => limiter.close());

  // Outside /v1: a public path (health, documents) with another method is 405; anything else 404.
  registerErrorHandling(app, ctx.config.bodyLimitBytes, actorEnvironment(ctx), notFoundOrWrongMethod(allowedMethodsOf(app, ['public'], ROUTER_OPTIONS)));
  registerLocation(app, allowedMethodsOf(app, ['public', 'v1', 'admin'], ROUTER_OPTIONS));
  // Before every other onRoute hook (the OpenAPI generator reads the plane it stamps).
  requirePlanes(app, { separateAdminListener: ctx.config.adminPort !== null });
  registerMetrics(app, metrics);
  registerDeliveryMetrics(metrics.registry, ctx.db);
  registerReplicaMetrics(metrics.registry, ctx.reads);
  const docs = await registerOpenApi(app);
  const onRateLimited = () => metrics.rateLimited.inc();

  await registerPlane(app, 'public', null, (scope) => registerHealth(scope, ctx, limiter));
  await registerPlane(app, 'public', publicGate(limiter, onRateLimited), async (scope) => {
    registerMcpDiscovery(scope);
    await registerPublicDocs(scope, docs);
  });
  // The documents' upload links (and the fs storage's download links): gated by their signature, not by a key (src/http/routes/files.ts).
  const rateLimits = options.rateLimits ?? SPEC_RATE_LIMITS;
  await registerPlane(app, 'public', signedLinkGate(ctx, limiter, rateLimits, onRateLimited), (scope) => registerFileRoutes(scope as unknown as App, ctx));
  const extraPublicRoutes = options.extraPublicRoutes;
  if (extraPublicRoutes) await registerPlane(app, 'public', null, (scope) => extraPublicRoutes(scope as unknown as App));
  await registerPlane(
    app,
    'v1',
    v1Gate({
      authenticator: ctx.authenticator,
      limiter,
      limits: rateLimits,
      onRateLimited,
      environment: actorEnvironment(ctx),
    }),
    async (v1) => {
      // A /v1 path that matches no route is still answered behind the v1 gate (401 without a
      // key, rate headers always): the router matched this plane's 404, not a string test.
      // A known path with another method is 405 with Allow (src/http/method-not-allowed.ts).
      const v1Methods = notFoundOrWrongMethod(allowedMethodsOf(app, ['v1'], ROUTER_OPTIONS));
      await v1.register(async (prefixed) => prefixed.setNotFoundHandler(v1Methods), { prefix: '/v1' });
      registerWriteMarks(v1, ctx.reads);
      registerIdempotency(v1, ctx.db);
      registerToolCallLedger(v1, ctx.db);
      registerV1Routes(v1 as unknown as App, ctx);
      // The MCP endpoint: outside /v1, behind the same gate.
      registerMcpRoutes(v1 as unknown as App, ctx.config);
      options.extraRoutes?.(v1 as unknown as App, ctx);
    },
  );
  checkToolOperations(app.plannedRoutes);
  // Without a token there is no back office at all: no route answers, not even 401.
  const adminToken = ctx.config.adminToken;
  if (adminToken !== null) {
    await registerPlane(app, 'admin', adminGate({ adminToken, db: ctx.db, environment: actorEnvironment(ctx) }), (admin) => {
      registerMetricsRoute(admin, metrics);
      registerAdminDoc(admin, docs);
      registerAdminRoutes(admin as unknown as App, ctx);
    });
  }
  await app.ready();
  return app;
}

interface HttpService {
  app: App;
  /** Listens on PORT, and on ADMIN_PORT when the back office has a listener of its own. */
  listen(): Promise<void>;
  /** Stops accepting and waits for the requests in flight. */
  close(): Promise<void>;
  /** Where the back office answers once listening (ADMIN_PORT's listener, or PORT's), for the CLI. */
  adminUrl(): string;
}

/**
 * @public (main.ts imports this module lazily, so the worker role never loads it: knip cannot see that use)
 * The HTTP side of a process (main.ts, roles `all` and `api`): the rate limiter's counters in
 * Redis when REDIS_URL is set (shared by every process), the app, its listeners. main.ts loads
 * this module only when it serves HTTP, so the worker role never builds the app.
 */
export async function createHttpService(ctx: AppContext): Promise<HttpService> {
  const config = ctx.config;
  // Redis may come and go while the process runs: /v1 answers 503 meanwhile (src/http/rate-limit/limiter.ts).
  // Its events can come before the app's logger exists: they are then written to stderr.
  let log: FastifyBaseLogger | null = null;
  const redis = config.redisUrl
    ? await connectRedis(config.redisUrl, {
        onUp: () => log?.info('Redis connected'),
        onDown: (err) => {
          const msg = 'Redis unreachable: /v1 requests answer 503 unavailable until it is back';
          if (log) log.error({ err }, msg);
          else console.error(msg, err);
        },
      })
    : null;
  // A key's next read may reach another API process: its write position is kept in Redis too.
  if (redis) ctx.reads.shareMarks(redis);
  const app = await buildApp({ ctx, limiter: new RateLimiter(redis ? new RedisCounterStore(redis) : new MemoryCounterStore()) });
  log = app.log;
  if (config.trustProxy && config.documents.publicUrl === null) {
    app.log.warn('TRUST_PROXY without PUBLIC_URL: document links point at the address this process listens on, which clients behind the proxy may not reach');
  }
  let adminListener: AdminListener | null = null;
  let compiling: NodeJS.Timeout | null = null;
  return {
    app,
    async listen() {
      await app.listen({ port: config.port, host: config.host });
      if (config.adminPort !== null) {
        adminListener = await listenAdmin(app, config.adminHost, config.adminPort, config.connections);
        app.log.info({ host: config.adminHost, port: adminListener.port }, 'back office and /metrics listening on their own port');
      }
      // The schemas no request has needed yet, compiled between requests a second from now (after
      // the first requests and the worker's and jobs' first runs), so that a route's first request
      // does not wait for them (src/http/lazy-schemas.ts).
      compiling = setTimeout(() => compileAllSchemas(app).catch((err) => app.log.error({ err }, 'a route schema does not compile')), 1000);
      compiling.unref();
    },
    async close() {
      if (compiling) clearTimeout(compiling);
      await adminListener?.close();
      await app.close();
    },
    adminUrl() {
      const loopback = (host: string) => (host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host);
      if (adminListener) return `http://${loopback(config.adminHost)}:${adminListener.port}`;
      const address = app.server.address();
      return `http://${loopback(config.host)}:${typeof address === 'object' && address ? address.port : config.port}`;
    },
  };
}

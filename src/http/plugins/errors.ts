/**
 * One envelope for every error on every route (spec 7): thrown ApiErrors, validation
 * failures, body parser failures, unknown routes and uncaught exceptions. Nothing internal
 * ever reaches the client; a 5xx is logged with the request id.
 *
 * A dependency that does not answer (Redis, a lost database connection) is `503 unavailable`
 * with `Retry-After`, never `500`: the client retries, the readiness probe says not ready.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, reasonDeclared, type ValidationIssue } from '../../core/errors.js';
import { isDatabaseUnreachable } from '../../db/errors.js';
import { DependencyUnavailableError } from '../../lib/unavailable.js';
import { errorEnvelope } from '../errors.js';
import type { BodyCheckEnvironment, BodyIssues } from '../types.js';
import { toIssues } from '../validation.js';

const PARTS: Record<string, 'path' | 'query' | 'body' | 'header'> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

/** Seconds a client waits before retrying a 503: Redis and the pool reconnect within about a second. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/** Under the tests an undeclared reason fails loudly; in production it is answered and logged. */
const STRICT_REASONS = process.env.DCM_STRICT_REASONS === '1';

function toApiError(
  error: FastifyError & { validation?: any[]; validationContext?: string },
  request: FastifyRequest,
  bodyLimit: number,
  environment: BodyCheckEnvironment,
): ApiError {
  if (error instanceof ApiError) {
    if (reasonDeclared(error, request.routeOptions.config?.reasons)) return error;
    request.log.error({ reason: error.reason, route: request.routeOptions.url }, 'a reason the operation does not declare (config.reasons)');
    return STRICT_REASONS ? new ApiError('internal_error') : error;
  }
  if (error.validation) {
    const where = PARTS[error.validationContext ?? 'body'] ?? 'body';
    const issues = toIssues(error.validation);
    const config = request.routeOptions.config;
    if (where === 'body') issues.push(...domainIssues(request, config?.bodyIssues, request.body, issues, environment));
    if (where === 'query') issues.push(...domainIssues(request, config?.queryIssues, request.query, issues, environment));
    if (where === 'header')
      for (const issue of issues)
        issue.path = issue.path.replace(/^(idempotency-key|if-match)$/, (h) =>
          h
            .split('-')
            .map((w) => w[0]!.toUpperCase() + w.slice(1))
            .join('-'),
        );
    return ApiError.invalid(where, issues);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return ApiError.invalid('body', [{ path: '', message: 'il corpo JSON è vuoto' }]);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return ApiError.invalid('body', [{ path: '', message: 'il corpo non è JSON valido' }]);
  }
  if (error instanceof SyntaxError || error.statusCode === 400) {
    // JSON parse errors (including prototype poisoning) and malformed URLs.
    const where = error.code === 'FST_ERR_BAD_URL' ? 'path' : 'body';
    return ApiError.invalid(where, [{ path: '', message: where === 'path' ? 'indirizzo non valido' : 'il corpo non è JSON valido' }]);
  }
  if (error.statusCode === 404) return ApiError.notFound();
  if (error.statusCode === 415) return ApiError.invalid('header', [{ path: 'Content-Type', message: 'deve essere application/json' }]);
  if (error.statusCode === 413)
    return ApiError.invalid('body', [{ path: '', message: `il corpo della richiesta supera ${request.routeOptions.bodyLimit ?? bodyLimit} byte` }]);
  if (error.statusCode === 503 || error instanceof DependencyUnavailableError || isDatabaseUnreachable(error)) return new ApiError('unavailable');
  request.log.error({ err: error }, 'unhandled error');
  return new ApiError('internal_error');
}

/**
 * The route's own checks of a body or query its schema refused (`config.bodyIssues`,
 * `config.queryIssues`), on the parts that parsed: the issues of fields the schema did not
 * already name. A check that throws on input it did not foresee adds nothing (logged): the
 * schema's answer stands.
 */
function domainIssues(
  request: FastifyRequest,
  check: BodyIssues | false | undefined,
  input: unknown,
  named: ValidationIssue[],
  environment: BodyCheckEnvironment,
): ValidationIssue[] {
  if (!check) return [];
  try {
    const paths = new Set(named.map((i) => i.path));
    return check(input, environment).filter((i) => !paths.has(i.path) && (paths.add(i.path), true));
  } catch (err) {
    request.log.warn({ err }, 'config.bodyIssues or queryIssues threw on input its schema refused');
    return [];
  }
}

export function registerErrorHandling(
  app: FastifyInstance,
  bodyLimit: number,
  environment: BodyCheckEnvironment,
  notFound: (request: FastifyRequest, reply: FastifyReply) => void = answerNotFound,
): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error, request, bodyLimit, environment);
    if (apiError.status >= 500 && apiError.code !== 'internal_error') request.log.warn({ err: error }, apiError.code);
    if (apiError.code === 'unavailable') reply.header('retry-after', UNAVAILABLE_RETRY_AFTER_SECONDS);
    return reply.status(apiError.status).type('application/json; charset=utf-8').send(errorEnvelope(apiError, request.id));
  });
  app.setNotFoundHandler(notFound);
}

function answerNotFound(request: FastifyRequest, reply: FastifyReply): void {
  void reply.status(404).type('application/json; charset=utf-8').send(errorEnvelope(ApiError.notFound(), request.id));
}

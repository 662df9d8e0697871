/**
 * The gate of the v1 plane (spec 5, 8): authenticate the bearer key, count the request
 * against the key's and the clinic's windows, then check the route's scopes. Rate-limit
 * headers go on every response, errors included.
 *
 * A failed authentication counts against the client address only when it could be a guess
 * (no header, a malformed or unknown key). A key we know that is refused (revoked, replaced,
 * expired, organization suspended, plan off) always answers its own code, never a 429: the
 * contract tells that client not to retry, and a 429 would tell it to.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { KnownKeyRefused, requireScopes, type Authenticator, aiDisabled } from '../../modules/auth/index.js';
import { ApiError } from '../../core/errors.js';
import { apiKeyActor, type ActorEnvironment } from '../../core/actor.js';
import { authFailureRules, callerRules, keyRules, type Decision, type RateLimiter, type RateLimits } from '../rate-limit/limiter.js';

interface CallerOptions {
  authenticator: Authenticator;
  limiter: RateLimiter;
  limits: RateLimits;
  /** What every actor carries besides its key (phone region, cursor secret). */
  environment: ActorEnvironment;
  /** Called when a request is refused with 429, for metrics. */
  onRateLimited?: () => void;
}

/** Requests per minute per client address on the public plane's metered routes (the docs). */
const PUBLIC_PER_MINUTE = 300;

function setRateHeaders(reply: FastifyReply, decision: Decision): void {
  reply.header('x-ratelimit-limit', decision.tightest.limit);
  reply.header('x-ratelimit-remaining', decision.tightest.remaining);
  reply.header('x-ratelimit-reset', decision.tightest.resetAt);
}

export function admitOrRefuse(reply: FastifyReply, decision: Decision, onRateLimited?: () => void): void {
  setRateHeaders(reply, decision);
  if (!decision.allowed) {
    reply.header('retry-after', decision.retryAfter);
    onRateLimited?.();
    throw new ApiError('rate_limited', { retryAfter: decision.retryAfter });
  }
}

export function v1Gate(options: CallerOptions): (scope: FastifyInstance) => void {
  const { authenticator, limiter, limits, onRateLimited, environment } = options;
  return (scope) => {
    scope.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        request.auth = await authenticator.authenticate(request.headers.authorization);
      } catch (error) {
        if (error instanceof KnownKeyRefused) {
          // Its own windows give the headers; a dead key's counters harm nobody, and the
          // refusal is never turned into a 429.
          setRateHeaders(reply, await limiter.check(keyRules(limits, error.keyId)));
        } else if (error instanceof ApiError) {
          admitOrRefuse(reply, await limiter.check(authFailureRules(limits, request.ip)), onRateLimited);
        }
        throw error;
      }
      // The actor exists from here on, so a route's own windows (extraWindows) read it like a handler.
      request.actor = apiKeyActor(request.auth, environment, request.id, request.log);
      const config = request.routeOptions.config;
      const windows = config.ownWindows ? config.ownWindows(request, limits) : callerRules(limits, request.auth.clinicId, request.auth.keyId);
      if (config.extraWindows) windows.push(...config.extraWindows(request));
      const decision = await limiter.check(windows);
      admitOrRefuse(reply, decision, onRateLimited);
      request.rateWindows = decision.windows;
      // Spec 7: with the clinic's AI off, an agent key and every AI operation are refused, after
      // the request was counted (like any request) and before the scopes are looked at.
      if (!request.auth.aiEnabled && !config.aiPerToolCall && (request.auth.agent !== 'none' || config.aiOperation)) throw aiDisabled();
      requireScopes(request.auth, config.scopes ?? []);
    });
  };
}

/** The public plane's metered routes: a budget per client address, so the docs cannot be hammered. */
export function publicGate(limiter: RateLimiter, onRateLimited?: () => void): (scope: FastifyInstance) => void {
  return (scope) => {
    scope.addHook('onRequest', async (request, reply) => {
      admitOrRefuse(reply, await limiter.check([{ name: `public:${request.ip}`, limit: PUBLIC_PER_MINUTE, seconds: 60 }]), onRateLimited);
    });
  };
}

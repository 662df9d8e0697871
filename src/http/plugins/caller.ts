/**
 * Who is calling and how much they may still call, for every /v1 request (spec 5, 8):
 * authenticate the bearer key, count the request against the key's and the clinic's
 * windows, then check the route's scopes. Rate-limit headers go on every response,
 * errors included. Failed authentications count against the client address.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator } from '../../modules/auth/authenticate.js';
import { requireScopes } from '../../modules/auth/authenticate.js';
import { ApiError } from '../../core/errors.js';
import { authFailureRules, callerRules, type Decision, type RateLimiter, type RateLimits } from '../rate-limit/limiter.js';

export interface CallerOptions {
  authenticator: Authenticator;
  limiter: RateLimiter;
  limits: RateLimits;
  /** Called when a request is refused with 429, for metrics. */
  onRateLimited?: () => void;
}

const PUBLIC_PER_MINUTE = 300;

function setRateHeaders(reply: FastifyReply, decision: Decision): void {
  reply.header('x-ratelimit-limit', decision.tightest.limit);
  reply.header('x-ratelimit-remaining', decision.tightest.remaining);
  reply.header('x-ratelimit-reset', decision.tightest.resetAt);
}

export function registerCaller(app: FastifyInstance, options: CallerOptions): void {
  const { authenticator, limiter, limits } = options;

  const admit = async (reply: FastifyReply, decision: Decision) => {
    setRateHeaders(reply, decision);
    if (!decision.allowed) {
      reply.header('retry-after', decision.retryAfter);
      options.onRateLimited?.();
      throw new ApiError('rate_limited', { retryAfter: decision.retryAfter });
    }
  };

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.url.startsWith('/v1/') && request.url !== '/v1') return;
    const config = request.routeOptions.config;
    if (config.public) {
      await admit(reply, await limiter.check([{ name: `public:${request.ip}`, limit: PUBLIC_PER_MINUTE, seconds: 60 }]));
      return;
    }
    try {
      request.auth = await authenticator.authenticate(request.headers.authorization);
    } catch (error) {
      if (error instanceof ApiError) await admit(reply, await limiter.check(authFailureRules(limits, request.ip)));
      throw error;
    }
    await admit(reply, await limiter.check(callerRules(limits, request.auth.clinicId, request.auth.keyId)));
    if (config.scopes) requireScopes(request.auth, config.scopes);
  });
}

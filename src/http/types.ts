/** Fastify typing shared by every route file. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { AuthContext } from '../core/actor.js';
import type { Scope } from '../modules/auth/scopes.js';
import type { IdempotencyRecord } from './plugins/idempotency.js';
import type { WindowRule } from './rate-limit/limiter.js';

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Scopes the key needs for this route (403 insufficient_scope lists the missing ones). */
    scopes?: Scope[];
    /**
     * A creation that honours `Idempotency-Key`. `'secret'`: its response holds a secret shown
     * once, so it is not stored and a replay answers 409 response_not_stored.
     */
    idempotent?: true | 'secret';
    /** Extra error statuses this route can answer, for its OpenAPI responses. */
    errorStatuses?: number[];
    /**
     * Windows of this route alone, checked and counted in the same atomic step as the key's
     * and the clinic's (so a refusal here consumes nothing there either).
     */
    extraWindows?: (request: FastifyRequest) => WindowRule[];
  }
  interface FastifyRequest {
    /** The caller, set by the auth hook on every authenticated /v1 route. */
    auth: AuthContext;
    idempotency: IdempotencyRecord | null;
  }
}

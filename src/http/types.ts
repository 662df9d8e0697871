/** Fastify typing shared by every route file. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { Actor, AuthContext } from '../core/actor.js';
import type { Scope } from '../modules/auth/index.js';
import type { IdempotencyRecord } from './plugins/idempotency.js';
import type { Db } from '../db/transaction.js';
import type { ToolCallLedger } from '../modules/tool-calls/index.js';
import type { RateLimits, RateWindowState, WindowRule } from './rate-limit/limiter.js';
import type { DeclaredReasons, ValidationIssue } from '../core/errors.js';

/** The process-wide values a body check may read (a phone without country code is read in `region`). */
export interface BodyCheckEnvironment {
  region: string;
}

/** A route's pure checks of its body (`config.bodyIssues`): one issue per wrong field, none when right. */
export type BodyIssues = (body: unknown, environment: BodyCheckEnvironment) => ValidationIssue[];

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
    /** Its successful answers carry an `ETag` (setEtag): declared on its 2xx responses in the OpenAPI document. */
    etag?: true;
    /** Its `201` carries a `Location` header: declared in the OpenAPI document. */
    location?: true;
    /** Extra error statuses this route can answer, for its OpenAPI responses. */
    errorStatuses?: number[];
    /**
     * Windows of this route alone, checked and counted in the same atomic step as the key's
     * and the clinic's (so a refusal here consumes nothing there either).
     */
    extraWindows?: (request: FastifyRequest) => WindowRule[];
    /**
     * The closed set of `details.reason` values this operation can answer with `409 conflict`
     * and `403 forbidden`, declared by its module (e.g. `PATIENT_REASONS.create`). They are listed
     * in the operation's OpenAPI description; a reason thrown but not declared is logged, and
     * under the tests (DCM_STRICT_REASONS=1) answered as a 500 so the omission cannot pass.
     */
    reasons?: DeclaredReasons;
    /**
     * The operation's checks of its body that need no database (pure, reading the body as
     * `unknown` and skipping what the schema refuses), e.g. `quoteBodyIssues`; `false` states that
     * the schema says it all. Every route with a body schema declares it (a route without stops the
     * start, src/http/planes.ts). The service runs the checks on a valid body; when the schema
     * refuses the body, the error handler runs them on the parts that parsed and adds their issues,
     * so one `400` names every wrong field it can. Checks that need the database (a reference to a
     * record) run only in the service, on a body that passed the schema.
     */
    bodyIssues?: BodyIssues | false;
    /**
     * The same for the query string (optional): its checks that need no database, run by the
     * service on a valid query and by the error handler on one its schema refused.
     */
    queryIssues?: BodyIssues;
    /**
     * An operation of the AI agents (the /v1/voice/* operations): refused `403 forbidden` reason
     * `ai_disabled` to every key while the clinic's AI processing is off (agent keys are refused
     * on every operation anyway).
     */
    aiOperation?: true;
    /**
     * Windows that replace the key's and the clinic's for this route: the MCP endpoint, whose tool
     * calls are counted as the operations they perform (each in its own request), not twice.
     */
    ownWindows?: (request: FastifyRequest, limits: RateLimits) => WindowRule[];
    /** The AI switch is checked per tool call (the MCP endpoint answers `ai_disabled` as a tool result). */
    aiPerToolCall?: true;
    /** The JSON body's text is kept for the handler (`rawBodyOf`): a platform's signature is over those bytes. */
    keepRawBody?: true;
    /**
     * A back-office route that acts as the clinic's staff on the clinic of its path (`:clinicId`):
     * the admin gate builds `request.actor` for it (src/http/plugins/admin-auth.ts).
     */
    clinicActor?: true;
  }
  interface FastifyRequest {
    /** The caller, set by the auth hook on every authenticated /v1 route. */
    auth: AuthContext;
    /**
     * Who acts, with the request id and logger: what services take. Set by the v1 gate with
     * `auth`, and by the admin gate on a route that declares `clinicActor`.
     */
    actor: Actor;
    idempotency: IdempotencyRecord | null;
    /**
     * The primary, for the request's work: a route declared `idempotent` passes it to its service
     * (not `ctx.db`), so that the work's transactions record whether they committed in the
     * request's Idempotency-Key (src/db/IDEMPOTENCY.md, rule 5). Without a key, `ctx.db` itself.
     */
    db: Db;
    /** The agent tools' call ledger of the caller's clinic (src/http/plugins/tool-calls.ts). */
    toolCalls: ToolCallLedger;
    /** Every rate-limit window this request was counted in, as counted (GET /v1/meta shows them). */
    rateWindows: readonly RateWindowState[];
  }
}

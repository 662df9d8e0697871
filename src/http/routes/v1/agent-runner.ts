/**
 * What the platform runners share (Vapi's, Retell's and the generic one): how they are gated, how
 * a platform's arguments become a tool call, and the one answer of a call. Every runner performs
 * its tools through callForRequest (src/http/routes/mcp.ts), the road /mcp takes, so a tool answers
 * the same on every platform; only the envelope is the platform's.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ToolOutcome } from '../../../agents/executor.js';
import { toolNamed } from '../../../agents/registry.js';
import { errorPayload, type ErrorPayload } from '../../../agents/results.js';
import type { AppContext } from '../../../context.js';
import { ApiError } from '../../../core/errors.js';
import { linkOrigin } from '../../link-origin.js';
import { agentMessageRules, type RateLimits } from '../../rate-limit/limiter.js';
import { performThroughRoutes } from '../agent-perform.js';
import { callableNames, callForRequest, type ToolAnswer } from '../mcp.js';

export const TAG = 'Agent tools';

/**
 * A runner's gate: any key (each tool's own route checks its scopes), the AI switch answered per
 * tool call, and its message counted in the agent window (`mcp:<key>:10s`) while each tool call
 * costs the budget of the operation it performs.
 */
export const RUNNER_CONFIG = {
  scopes: [],
  aiPerToolCall: true as const,
  ownWindows: (request: FastifyRequest, limits: RateLimits) => agentMessageRules(limits, request.auth.keyId),
  bodyIssues: false as const,
};

/** A platform's arguments: an object, or an object as JSON text; anything else is refused per call. */
function argumentsOf(value: unknown): Record<string, unknown> | null {
  let args: unknown = value ?? {};
  if (typeof args === 'string') {
    try {
      args = args.trim() === '' ? {} : (JSON.parse(args) as unknown);
    } catch {
      return null;
    }
  }
  return args !== null && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : null;
}

/**
 * `null` as "not given", at every depth: OpenAI's strict mode makes the model send every argument,
 * null for those it leaves out, where the operations take an absent field (a field may be cleared
 * through the REST operation or /mcp, not through this runner).
 */
function withoutNulls(args: Record<string, unknown>): Record<string, unknown> {
  const clean = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(clean);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => [k, clean(v)]),
    );
  };
  return clean(args) as Record<string, unknown>;
}

/** A tool call that never reached its tool: the platform's entry itself is wrong. */
type Issue = { path: string; message: string };

function refusedCall(issues: Issue[]): Extract<ToolOutcome, { ok: false }> {
  return {
    ok: false,
    error: { code: 'invalid_request', message: 'La chiamata dello strumento non è valida: correggi i campi indicati.', details: { in: 'tool_call', issues } },
  };
}

/** The payload of an answer: `{result}` (the operation's answer, `{done: true}` for none) or `{error}`. */
export function answerOf(outcome: ToolAnswer): { result: unknown } | { error: ErrorPayload } {
  return outcome.ok ? { result: outcome.data ?? { done: true } } : { error: outcome.payload };
}

/** One call, performed for this request's key as /mcp performs it; a bad name or arguments answer as its error. */
export function toolCaller(app: FastifyInstance, request: FastifyRequest, { nullsAbsent = false } = {}) {
  const perform = performThroughRoutes(app, request);
  return async (name: unknown, rawArgs: unknown, callId: string | undefined, entryIssues: Issue[] = []): Promise<ToolAnswer> => {
    const issues = [...entryIssues];
    if (typeof name !== 'string' || name.length === 0) issues.push({ path: 'name', message: 'manca il nome dello strumento' });
    const args = argumentsOf(rawArgs);
    if (args === null) issues.push({ path: 'arguments', message: 'deve essere un oggetto JSON' });
    if (issues.length > 0 || typeof name !== 'string' || args === null) {
      const refused = refusedCall(issues);
      return { ...refused, payload: errorPayload(refused, callableNames(request)) };
    }
    if (nullsAbsent) return callForRequest(request, perform, toolNamed(name), name, withoutNulls(args), callId);
    return callForRequest(request, perform, toolNamed(name), name, args, callId);
  };
}

export function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * The origin every pack URL starts with: PUBLIC_URL. Without it, the address this process listens
 * on (as documents' links), which a platform reaches only when it runs on this machine or its
 * network; behind a proxy (TRUST_PROXY) that address is the proxy's upstream, which no platform
 * reaches, so the pack is refused (409 `public_url_required`) rather than handed out wrong. Never
 * the request's Host: a client could otherwise have the service hand out a pack pointing elsewhere.
 */
export function publicBase(ctx: AppContext, request: FastifyRequest): string {
  const { publicUrl } = ctx.config.documents;
  if (publicUrl === null && ctx.config.trustProxy) {
    throw ApiError.conflict('public_url_required', {}, 'Imposta PUBLIC_URL: dietro un proxy il servizio non conosce il proprio indirizzo pubblico.');
  }
  return linkOrigin(publicUrl, ctx.config.host, request.raw.socket);
}

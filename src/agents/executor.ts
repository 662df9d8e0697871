/**
 * Running a tool: its arguments become the REST request of its operation (path, query, body,
 * and an Idempotency-Key derived from the call's id), which the caller's `perform` sends through
 * the operation's own route with the caller's key. The answer comes back as data or as the API
 * error, unchanged.
 */
import { bodyHashOf } from '../db/idempotency.js';
import { derived, writes } from './registry.js';
import type { AgentTool, ToolMethod } from './tool.js';

export interface OperationRequest {
  method: ToolMethod;
  /** The path with its ids, e.g. `/v1/calendars/<id>/availability`. */
  path: string;
  query: Record<string, string>;
  body: Record<string, unknown> | undefined;
  idempotencyKey: string | undefined;
}

export interface OperationResponse {
  status: number;
  /** The parsed JSON answer (null for none). */
  body: unknown;
  headers: Record<string, string | string[] | number | undefined>;
}

/** Sends an operation through its route, as the caller (the HTTP layer provides it). */
export type Perform = (request: OperationRequest) => Promise<OperationResponse>;

export interface ToolError {
  code: string;
  message: string;
  details: Record<string, unknown> | null;
}

export type ToolOutcome = { ok: true; data: unknown } | { ok: false; error: ToolError; retryAfter?: number };

function queryValue(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join(',');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * A retry of a writing tool is the same call of the same tool with the same arguments: their
 * hash is its Idempotency-Key, so the idempotency store (src/db/idempotency.ts) answers the
 * first result across processes and writes nothing more.
 */
export function retryKey(tool: AgentTool, callId: string, args: Record<string, unknown>): string {
  return `tool:${tool.name}:${bodyHashOf({ callId, args })}`;
}

/** The REST request of a tool call, or the wrong arguments that stop it before any request. */
export function requestOf(tool: AgentTool, args: Record<string, unknown>, callId: string | undefined): { request: OperationRequest } | { error: ToolError } {
  const { places } = derived(tool);
  const params: Record<string, string> = {};
  const query: Record<string, string> = {};
  let body: Record<string, unknown> | undefined = tool.body ? {} : undefined;
  const issues: { path: string; message: string }[] = [];
  for (const [name, value] of Object.entries(args)) {
    const place = places.get(name);
    if (name === 'callId' && !place) continue; // only the retries' identity
    if (!place) {
      // The route names every unknown field with the others; a tool with no body sends them as query.
      if (body) body[name] = value;
      else query[name] = queryValue(value);
    } else if (place.in === 'path') {
      if (typeof value === 'string' && value.length > 0) params[place.param] = value;
      else issues.push({ path: name, message: 'deve essere un identificativo (stringa)' });
    } else if (place.in === 'query') {
      if (value !== undefined && value !== null) query[name] = queryValue(value);
    } else {
      (body ??= {})[name] = value;
    }
  }
  for (const [name, place] of places) {
    if (place.in === 'path' && !(name in args)) issues.push({ path: name, message: 'obbligatorio' });
  }
  for (const name of tool.alsoRequired ?? []) if (!(name in args)) issues.push({ path: name, message: 'obbligatorio' });
  if (issues.length > 0) {
    return { error: { code: 'invalid_request', message: 'La richiesta non è valida: correggi i campi indicati.', details: { in: 'arguments', issues } } };
  }
  const path = tool.operation.url.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  const idempotencyKey = writes(tool) && callId ? retryKey(tool, callId, args) : undefined;
  if (body && Object.keys(body).length === 0 && !tool.body) body = undefined;
  return { request: { method: tool.operation.method, path, query, body, idempotencyKey } };
}

/** The call's id: the platform's header (Vapi's X-Call-Id) or the `callId` argument. */
export function callIdOf(header: string | undefined, args: Record<string, unknown>): string | undefined {
  if (typeof args.callId === 'string' && args.callId.length > 0) return args.callId;
  return header && header.length > 0 ? header : undefined;
}

export async function runTool(tool: AgentTool, args: Record<string, unknown>, callId: string | undefined, perform: Perform): Promise<ToolOutcome> {
  const built = requestOf(tool, args, callId);
  if ('error' in built) return { ok: false, error: built.error };
  const response = await perform(built.request);
  if (response.status >= 200 && response.status < 300) return { ok: true, data: response.body };
  const envelope = (response.body as { error?: ToolError } | null)?.error;
  const error: ToolError = envelope
    ? { code: envelope.code, message: envelope.message, details: envelope.details ?? null }
    : { code: 'internal_error', message: 'Errore interno del server: riprova più tardi.', details: null };
  const retryAfter = Number(response.headers['retry-after']);
  return Number.isFinite(retryAfter) && retryAfter > 0 ? { ok: false, error, retryAfter } : { ok: false, error };
}

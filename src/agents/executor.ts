/**
 * Running a tool: its arguments become the REST request of its operation (path, query, body,
 * and an Idempotency-Key derived from the call's id and its last write), which the caller's `perform` sends through
 * the operation's own route with the caller's key. The answer comes back as data or as the API
 * error, unchanged.
 */
import { bodyHashOf } from '../db/idempotency.js';
import { derived, writes } from './registry.js';
import type { AgentTool, ToolMethod } from './tool.js';
import { toolWriteKey, type ToolWrite } from '../modules/tool-calls/index.js';

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

/** An ISO 8601 instant with its offset: written in several ways for one instant. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * The arguments as what they mean, so that a retry a model spells another way is the same
 * request: an instant as the instant it denotes (`…:00Z`, `…:00.000Z` and `…+01:00` of it are
 * one), absent arguments dropped (key order does not matter to bodyHashOf). They are also what
 * is sent, so that a replay's body is the first one's (the idempotency store compares them).
 * A null is kept: an optional argument that may not be null is refused before any request, so a
 * null that gets here is a value (a field cleared), not an absent argument.
 */
function canonicalArguments(value: unknown): unknown {
  if (typeof value === 'string' && INSTANT.test(value)) {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? value : new Date(ms).toISOString();
  }
  if (Array.isArray(value)) return value.map(canonicalArguments);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(value as Record<string, unknown>)) if (v !== undefined) out[name] = canonicalArguments(v);
  return out;
}

/** The hash of a writing call's canonical arguments: its call's id left out (it is the call, not the request). */
function argumentsHash(canonical: Record<string, unknown>): string {
  const { callId: _callId, ...request } = canonical;
  return bodyHashOf(request);
}

/** The call's writes, shared by every process (src/modules/tool-calls). */
interface CallLedger {
  lastWrite(callId: string): Promise<ToolWrite | null>;
  recordWrite(callId: string, write: ToolWrite): Promise<void>;
}

/**
 * The ledger of a tool call: the call's writes, and whether this tool's operation takes an
 * Idempotency-Key (its route's `idempotent`). Such a write is in the ledger as its key's row,
 * marked inside its work's transaction, so it is not recorded a second time.
 */
interface ToolLedger {
  calls: CallLedger;
  operationTakesKey: boolean;
}

/**
 * The Idempotency-Key of a writing tool call. A retry (the same tool with the same canonical
 * arguments as the call's last successful write, nothing written since) takes that write's key,
 * so the idempotency store answers its first result and writes nothing more; two identical
 * calls in flight together take one key, so one writes. Any other writing call is a new attempt:
 * its key chains on the previous write's key, so book → cancel → book books again. The key is the
 * ledger too: once its work commits, it is the call's last write.
 */
function retryKey(tool: AgentTool, callId: string, argsHash: string, last: ToolWrite | null): string {
  if (last && last.tool === tool.name && last.argsHash === argsHash) return last.idempotencyKey;
  return toolWriteKey(callId, tool.name, argsHash, last?.idempotencyKey ?? null);
}

/** The argument the call's id stands for (`callIdAs`: hand_off's `callId`, hold_slot's `holderRef`, log_call's `externalCallId`), filled when the model leaves it out. */
export function withCallId(tool: AgentTool, args: Record<string, unknown>, callId: string | undefined): Record<string, unknown> {
  const field = tool.callIdAs;
  if (!callId || field === undefined || args[field] !== undefined) return args;
  return { ...args, [field]: callId };
}

/** The REST request of a tool call, or the wrong arguments that stop it before any request. */
function requestOf(tool: AgentTool, args: Record<string, unknown>, idempotencyKey: string | undefined): { request: OperationRequest } | { error: ToolError } {
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
  if (body && Object.keys(body).length === 0 && !tool.body) body = undefined;
  return { request: { method: tool.operation.method, path, query, body, idempotencyKey } };
}

/** The call's id: the platform's header (Vapi's X-Call-Id) or the `callId` argument. */
export function callIdOf(header: string | undefined, args: Record<string, unknown>, tool?: AgentTool): string | undefined {
  for (const name of ['callId', tool?.callIdAs]) {
    const value = name === undefined ? undefined : args[name];
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return header && header.length > 0 ? header : undefined;
}

/**
 * Runs a tool call. A writing tool with a call id reads the call's last write in `ledger` for its
 * Idempotency-Key (retryKey) and, once it succeeded, is the call's last write: as its key's row
 * when its operation takes the key, else recorded in the ledger.
 */
export async function runTool(
  tool: AgentTool,
  args: Record<string, unknown>,
  callId: string | undefined,
  perform: Perform,
  ledger?: ToolLedger,
): Promise<ToolOutcome> {
  const sent = writes(tool) ? (canonicalArguments(args) as Record<string, unknown>) : args;
  const write = writes(tool) && callId ? { callId, argsHash: argumentsHash(sent) } : null;
  const last = write && ledger ? await ledger.calls.lastWrite(write.callId) : null;
  const idempotencyKey = write ? retryKey(tool, write.callId, write.argsHash, last) : undefined;
  const built = requestOf(tool, sent, idempotencyKey);
  if ('error' in built) return { ok: false, error: built.error };
  const response = await perform(built.request);
  if (response.status >= 200 && response.status < 300) {
    if (write && ledger && !ledger.operationTakesKey && idempotencyKey)
      await ledger.calls.recordWrite(write.callId, { tool: tool.name, argsHash: write.argsHash, idempotencyKey });
    return { ok: true, data: response.body };
  }
  const envelope = (response.body as { error?: ToolError } | null)?.error;
  const error: ToolError = envelope
    ? { code: envelope.code, message: envelope.message, details: envelope.details ?? null }
    : { code: 'internal_error', message: 'Errore interno del server: riprova più tardi.', details: null };
  const retryAfter = Number(response.headers['retry-after']);
  return Number.isFinite(retryAfter) && retryAfter > 0 ? { ok: false, error, retryAfter } : { ok: false, error };
}

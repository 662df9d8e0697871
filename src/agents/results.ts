/**
 * A tool's answer as a model reads it. Data goes in `structuredContent` (and as
 * JSON text for clients that read only text), after one line stating the clinic's "now". An API
 * error becomes `isError: true` with one sentence to act on, the stable `code` and the details
 * that help (a taken slot's `alternatives`, the wrong fields, `retryAfter`).
 */
import type { ToolError, ToolOutcome } from './executor.js';

/** The tools a connection may call: a next step sends the model only to those (registry.ts describe). */
type Callable = ReadonlySet<string>;

/** Where a model turns when it cannot help: a person now, a task for later, or the clinic's phone. */
function escalation(callable: Callable): string {
  if (callable.has('hand_off')) return 'offer to hand off to a person (hand_off)';
  if (callable.has('create_task')) return 'offer to leave a task for the staff (create_task)';
  return 'tell the caller to contact the clinic’s staff directly';
}

/** Where a model gets an id again, by the argument that named it. */
function idAgain(path: string, callable: Callable): string {
  if (path === 'patientId') {
    const sources = [
      callable.has('get_caller_context') ? 'get_caller_context' : null,
      callable.has('search_patients') ? 'a confirmed search_patients' : null,
    ].filter(Boolean);
    return sources.length > 0 ? `a patient’s id only from ${sources.join(' or ')}` : 'a patient’s id only from an answer that gave it for this person';
  }
  if (path === 'holdId') return callable.has('hold_slot') ? 'a hold by holding the slot again (hold_slot)' : 'a slot by booking it with calendarId and start';
  return 'other ids from the answer they came from';
}

/** An argument that names a record by its id: a wrong one is an unknown record, not a field to correct. */
const isIdArgument = (path: string) => /Ids?$/.test(path);

function invalidRequest(error: ToolError, callable: Callable): string {
  const paths = ((error.details as { issues?: { path: string }[] } | null)?.issues ?? []).map((i) => i.path);
  const ids = [...new Set(paths.filter(isIdArgument))];
  const steps: string[] = [];
  if (ids.length > 0)
    steps.push(
      `${ids.map((p) => `\`${p}\``).join(', ')} names nothing this clinic knows: do not send the same id again; get ${[...new Set(ids.map((p) => idAgain(p, callable)))].join('; ')}`,
    );
  if (paths.length > ids.length || paths.length === 0) steps.push('correct the arguments listed in details.issues and call the tool again');
  return `${steps.join('. ')[0]!.toUpperCase()}${steps.join('. ').slice(1)}; do not read this to the caller.`;
}

const NEXT_STEP: Record<string, (error: ToolError, callable: Callable) => string> = {
  invalid_request: invalidRequest,
  not_found: () => 'Nothing with that id is visible to this clinic: check where the id came from before telling the caller it does not exist.',
  no_availability: (_, callable) =>
    `That time is no longer free: offer the caller the times in details.alternatives (read their \`label\`)${callable.has('find_slots') ? ', or look for others with find_slots' : ''}.`,
  conflict: (_, callable) => `The clinic’s rules do not allow this now (see details.reason): tell the caller briefly, and ${escalation(callable)}.`,
  forbidden: (_, callable) =>
    `The clinic’s rules do not allow this (see details.reason): tell the caller a person from the clinic will help, and ${escalation(callable)}.`,
  insufficient_scope: (_, callable) => `This key may not do that: do not retry; ${escalation(callable)}.`,
  rate_limited: () => 'Too many requests right now: wait details.retryAfter seconds, then call the tool again; meanwhile ask the caller to hold on a moment.',
  idempotency_in_progress: () => 'The same request is still running: wait a second and call the tool again with the same arguments.',
  idempotency_key_reused: () => 'This call id was already used for different arguments of this tool: do not retry with the same callId.',
  unavailable: () => 'A service is briefly unavailable: wait a few seconds and call the tool again.',
  internal_error: (_, callable) => `Something went wrong on the clinic’s side: apologize, and ${escalation(callable)}.`,
};

/** With AI off every tool is refused, a task and a handoff too: nothing records a callback. */
const AI_OFF =
  'The clinic has switched AI processing off, so nothing can be booked or noted through you now: tell the caller the assistant is not available and that they can reach the clinic’s staff directly, then end politely. Do not promise a callback.';

/**
 * A refused hold is no reason to hand off: holding is optional, and booking the slot directly
 * still works (the caps bound holds, not bookings).
 */
const HOLD_REFUSED =
  'Holding is not possible now, but booking is: once the caller confirms, book the slot directly with book_appointment (calendarId, start, patientId), without holdId.';
const HOLD_REASONS: ReadonlySet<unknown> = new Set(['hold_limit', 'hold_limit_calendar', 'hold_life_exceeded']);

/**
 * The first attempt of this very call did the work, and its answer was lost on the way (src/db/IDEMPOTENCY.md,
 * rule 5): sending it again would do nothing, and doing it under other arguments would do it twice.
 */
const RESPONSE_LOST =
  'This was already done by an earlier attempt of this same call, whose answer was lost: do not call the tool again for it; read the result back with a tool that lists it before you tell the caller it is done.';

/** What the model should do about an error, naming only tools it may call. */
export function nextStep(error: ToolError, callable: Callable): string {
  const reason = (error.details as { reason?: unknown } | null)?.reason;
  if (reason === 'ai_disabled') return AI_OFF;
  if (error.code === 'conflict' && reason === 'response_lost') return RESPONSE_LOST;
  if (error.code === 'conflict' && HOLD_REASONS.has(reason) && callable.has('book_appointment')) return HOLD_REFUSED;
  return (NEXT_STEP[error.code] ?? NEXT_STEP.internal_error!)(error, callable);
}

export interface ErrorPayload {
  code: string;
  message: string;
  nextStep: string;
  details: Record<string, unknown>;
}

/** The error a tool answers, as one object: what a model needs and a platform can log. */
export function errorPayload(outcome: Extract<ToolOutcome, { ok: false }>, callable: Callable): ErrorPayload {
  const details = { ...(outcome.error.details ?? {}) };
  if (outcome.retryAfter !== undefined) details.retryAfter = outcome.retryAfter;
  return { code: outcome.error.code, message: outcome.error.message, nextStep: nextStep(outcome.error, callable), details };
}

interface McpToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * The clinic's local "now", formatted once per zone and minute (the line shows minutes): building
 * an Intl.DateTimeFormat, then formatting a full date with it, showed in the server's CPU profile
 * under a load of MCP tool calls (docs/performance.md), for a text that changes once a minute.
 */
const NOW_LINES = new Map<string, { minute: number; format: Intl.DateTimeFormat; local: string }>();

function localNow(timeZone: string, now: Date): string {
  const minute = Math.floor(now.getTime() / 60_000);
  let entry = NOW_LINES.get(timeZone);
  if (!entry) {
    const format = new Intl.DateTimeFormat('it-IT', { timeZone, dateStyle: 'full', timeStyle: 'short' });
    NOW_LINES.set(timeZone, (entry = { minute, format, local: format.format(now) }));
  } else if (entry.minute !== minute) {
    entry.minute = minute;
    entry.local = entry.format.format(now);
  }
  return entry.local;
}

/** "Now" in the clinic's zone, said plainly: a model has no clock. */
export function nowLine(timeZone: string, now = new Date()): string {
  return `Now at the clinic: ${localNow(timeZone, now)} (${timeZone}; ${now.toISOString()}).`;
}

export function mcpResult(outcome: { ok: true; data: unknown } | { ok: false; payload: ErrorPayload }, timeZone: string): McpToolResult {
  if (!outcome.ok) {
    const { payload } = outcome;
    return { isError: true, content: [{ type: 'text', text: `${payload.nextStep} (code: ${payload.code})\n${JSON.stringify(payload)}` }] };
  }
  // An operation that answers no body (204) is `{ done: true }`: the DONE output schema of its tool.
  const data = outcome.data ?? { done: true };
  const text = `${nowLine(timeZone)}\n${JSON.stringify(data)}`;
  const result: McpToolResult = { content: [{ type: 'text', text }] };
  if (typeof data === 'object' && !Array.isArray(data)) result.structuredContent = data as Record<string, unknown>;
  return result;
}

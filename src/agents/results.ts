/**
 * A tool's answer as a model reads it (issue 35 part 4). Data goes in `structuredContent` (and as
 * JSON text for clients that read only text), after one line stating the clinic's "now". An API
 * error becomes `isError: true` with one sentence to act on, the stable `code` and the details
 * that help (a taken slot's `alternatives`, the wrong fields, `retryAfter`).
 */
import type { ToolError, ToolOutcome } from './executor.js';

const NEXT_STEP: Record<string, string> = {
  invalid_request: 'Some arguments are wrong: correct the fields listed in details.issues and call the tool again; do not read this to the caller.',
  not_found: 'Nothing with that id is visible to this clinic: check the id (search again) before telling the caller it does not exist.',
  no_availability: 'That time is no longer free: offer the caller the times in details.alternatives (or look for other slots with find_slots).',
  conflict: 'The clinic’s rules do not allow this now (see details.reason): tell the caller briefly and offer to leave a task for the staff or to hand off.',
  forbidden: 'The clinic’s rules do not allow this (see details.reason): tell the caller a person from the clinic will help, and hand off or leave a task.',
  insufficient_scope: 'This key may not do that: do not retry; offer to hand off to a person.',
  rate_limited: 'Too many requests right now: wait details.retryAfter seconds, then call the tool again; meanwhile ask the caller to hold on a moment.',
  idempotency_in_progress: 'The same request is still running: wait a second and call the tool again with the same arguments.',
  idempotency_key_reused: 'This call id was already used for different arguments of this tool: do not retry with the same callId.',
  unavailable: 'A service is briefly unavailable: wait a few seconds and call the tool again.',
  internal_error: 'Something went wrong on the clinic’s side: apologize, and offer to hand off or to have the clinic call back.',
};

const AI_OFF =
  'The clinic has switched AI processing off: tell the caller that the assistant is not available and that the clinic will call them back, then end politely.';

/**
 * A refused hold is no reason to hand off: holding is optional, and booking the slot directly
 * still works (the caps bound holds, not bookings).
 */
const HOLD_REFUSED =
  'Holding is not possible now, but booking is: once the caller confirms, book the slot directly with book_appointment (calendarId, start, patientId), without holdId.';
const HOLD_REASONS: ReadonlySet<unknown> = new Set(['hold_limit', 'hold_limit_calendar', 'hold_life_exceeded']);

export function nextStep(error: ToolError): string {
  const reason = (error.details as { reason?: unknown } | null)?.reason;
  if (reason === 'ai_disabled') return AI_OFF;
  if (error.code === 'conflict' && HOLD_REASONS.has(reason)) return HOLD_REFUSED;
  return NEXT_STEP[error.code] ?? NEXT_STEP.internal_error!;
}

/** The error a tool answers, as one object: what a model needs and a platform can log. */
export function errorPayload(outcome: Extract<ToolOutcome, { ok: false }>) {
  const details = { ...(outcome.error.details ?? {}) };
  if (outcome.retryAfter !== undefined) details.retryAfter = outcome.retryAfter;
  return { code: outcome.error.code, message: outcome.error.message, nextStep: nextStep(outcome.error), details };
}

export interface McpToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * The clinic's local "now", formatted once per zone and minute (the line shows minutes): building
 * an Intl.DateTimeFormat, then formatting a full date with it, was 2 % of the server's CPU under a
 * load of MCP tool calls (profiles of 2026-11-26), for a text that changes once a minute.
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

export function mcpResult(outcome: ToolOutcome, timeZone: string): McpToolResult {
  if (!outcome.ok) {
    const payload = errorPayload(outcome);
    return { isError: true, content: [{ type: 'text', text: `${payload.nextStep} (code: ${payload.code})\n${JSON.stringify(payload)}` }] };
  }
  // An operation that answers no body (204) is `{ done: true }`: the DONE output schema of its tool.
  const data = outcome.data ?? { done: true };
  const text = `${nowLine(timeZone)}\n${JSON.stringify(data)}`;
  const result: McpToolResult = { content: [{ type: 'text', text }] };
  if (typeof data === 'object' && !Array.isArray(data)) result.structuredContent = data as Record<string, unknown>;
  return result;
}

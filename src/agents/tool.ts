/**
 * What an agent tool is: one step of an agent's job, performed as one REST operation
 * of /v1. A tool names its operation (method and route), the module's TypeBox schemas of that
 * operation's path, query and body (its arguments are their fields: the REST names) and of its
 * answer, and a description written for a model. It holds no rule of its own: calling it runs
 * the operation's route, so the gate, the validation, the service and the access log are that
 * route's (src/agents/README.md).
 */
import type { TObject, TSchema } from 'typebox';
import type { AgentKind } from '../core/actor.js';

export type ToolMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * Which agent keys see a tool: every key, only voice agents' or chat bots', or `staff`: none of
 * them (plain keys see all: a staff assistant's, an outbound agent's).
 */
export type ToolAudience = 'all' | 'voice' | 'chat' | 'staff';

/** A sentence of a description, or one with what to say when a tool it names is not callable. */
export type Sentence = string | { text: string; otherwise: Sentence | null };

export interface AgentTool {
  /** snake_case verb_noun. */
  name: string;
  /** A short human title (MCP `title`). */
  title: string;
  /**
   * For a model: what the tool is for, when to use it, what to say when it answers nothing, one
   * sentence an entry. A sentence that names another tool is shown only to a connection that may
   * call that tool; `{ text, otherwise }` says what to show instead (null: nothing), so no model
   * is sent to a tool it does not have. `{timeZone}` is replaced by the clinic's zone. Static text
   * only: never data of a patient.
   */
  description: readonly Sentence[];
  /** The REST operation it performs: the route as registered (`/v1/calendars/:id/availability`). */
  operation: { method: ToolMethod; url: string; operationId: string };
  /** The route's path schema, and the argument name of each path parameter (`id` → `calendarId`). */
  params?: { schema: TObject; names: Record<string, string> };
  query?: TObject;
  body?: TObject;
  /** Arguments the model must send although the operation has them optional (a patient's appointments need `patientId`). */
  alsoRequired?: readonly string[];
  /**
   * The answer is an appointment (`one`) or a page of them (`page`): the tool adds each start's
   * clinic-local reading, which the REST resource may not carry (readings.ts).
   */
  localStart?: 'one' | 'page';
  /** The operation's answer (absent: it answers no body, e.g. 204). */
  output?: TSchema;
  audience: ToolAudience;
  /**
   * The body field the call's id stands for (hold_slot's `holderRef`, log_call's `externalCallId`,
   * hand_off's `callId`): a model sends `callId` (or the platform its call's id), the field is
   * filled from it, and the field's own name is still accepted as an alias, but not shown.
   */
  callIdAs?: string;
  /**
   * Arguments of the operation a model has no use for (a sync filter, a field an agent key's
   * kind decides): still accepted, not shown in `tools/list` or the packs.
   */
  unshown?: readonly string[];
  /** MCP annotations beyond what the method says (GET is read-only). */
  /** It changes or ends something the caller had (an appointment's time, the appointment itself). */
  destructive?: boolean;
  /** A plain retry (the same arguments, no call id) has no further effect: a call id is not needed for it. */
  idempotent?: boolean;
}

export const AUDIENCE_OF: Record<AgentKind, ToolAudience | null> = { none: null, voice_agent: 'voice', chat_bot: 'chat' };

export function readOnly(tool: AgentTool): boolean {
  return tool.operation.method === 'GET';
}

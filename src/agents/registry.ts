/**
 * The agent tool registry: every tool, once, with its MCP shape derived from the
 * module schemas of its operation. A new area adds one file under tools/ and one line here.
 */
import type { TSchema } from 'typebox';
import { AGENDA_TOOLS } from './tools/agenda.js';
import { CHAT_TOOLS } from './tools/chat.js';
import { OFFICE_TOOLS } from './tools/office.js';
import { OUTBOUND_TOOLS } from './tools/outbound.js';
import { CONFIRMATION_TOOLS } from './tools/confirmations.js';
import { PEOPLE_TOOLS } from './tools/people.js';
import { VOICE_TOOLS } from './tools/voice.js';
import { inputForModel, outputForModel } from './model-schema.js';
import { withReadingFields } from './readings.js';
import { exampleInstant, LOCAL_OR_INSTANT, LOCAL_TIME_NOTE } from './local-time.js';
import { readOnly, type AgentTool, type Sentence } from './tool.js';

export const AGENT_TOOLS: readonly AgentTool[] = [
  ...VOICE_TOOLS,
  ...PEOPLE_TOOLS,
  ...AGENDA_TOOLS,
  ...OFFICE_TOOLS,
  ...OUTBOUND_TOOLS,
  ...CONFIRMATION_TOOLS,
  ...CHAT_TOOLS,
];

const BY_NAME = new Map(AGENT_TOOLS.map((t) => [t.name, t]));

export function toolNamed(name: string): AgentTool | undefined {
  return BY_NAME.get(name);
}

export type JsonSchema = Record<string, unknown>;

/** A TypeBox schema as plain JSON Schema (TypeBox's own markers are not enumerable). */
function plain(schema: TSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema)) as JsonSchema;
}

const CALL_ID: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  // Short, on every writing tool: what a retry with it answers is said once, in the server's
  // instructions and docs/agents.md (the voice key's tools/list stays under 40 KB).
  description: 'The call’s or chat’s id (or X-Call-Id)',
};

/** The argument a writing tool takes its retries' identity from (`callId`; the handoff's own `callId` is the same). */
export function writes(tool: AgentTool): boolean {
  return !readOnly(tool);
}

/**
 * The answer of a tool whose operation answers no body (204: release_hold): `{ "done": true }`,
 * so every tool has an output schema and a result a model can read.
 */
const DONE: JsonSchema = { type: 'object', properties: { done: { type: 'boolean', const: true } }, required: ['done'], additionalProperties: false };

interface Derived {
  input: JsonSchema;
  output: JsonSchema;
  /** Argument name → where it goes in the REST request. */
  places: Map<string, { in: 'path'; param: string } | { in: 'query' } | { in: 'body' }>;
  /** The date-time arguments: sent without offset, they are the clinic's local time (local-time.ts). */
  times: string[];
}

/**
 * A date-time argument as a model sees it: the operation's `format: date-time` asks for `Z` or an
 * offset (the REST contract), which a strict client would enforce and a model would meet by
 * converting the caller's hour itself; here a time without offset is also accepted, as the
 * clinic's local time (local-time.ts turns it into the instant).
 */
function localTimeArgument(prop: JsonSchema): JsonSchema {
  const { format: _format, examples: _examples, description, ...rest } = prop;
  const said = typeof description === 'string' && !description.startsWith('ISO 8601') ? `${description.replace(/\.?$/, '.')} ` : '';
  return { ...rest, pattern: LOCAL_OR_INSTANT, description: `${said}${LOCAL_TIME_NOTE}`, examples: ['2027-03-09T09:00', exampleInstant('Europe/Rome')] };
}

function derive(tool: AgentTool): Derived {
  const properties: Record<string, JsonSchema> = {};
  const required = new Set<string>();
  const places: Derived['places'] = new Map();
  const times: string[] = [];
  if (tool.params) {
    const schema = plain(tool.params.schema) as { properties: Record<string, JsonSchema> };
    for (const [param, prop] of Object.entries(schema.properties)) {
      const name = tool.params.names[param] ?? param;
      properties[name] = prop;
      required.add(name);
      places.set(name, { in: 'path', param });
    }
  }
  for (const [where, source] of [
    ['query', tool.query],
    ['body', tool.body],
  ] as const) {
    if (!source) continue;
    const schema = plain(source) as { properties: Record<string, JsonSchema>; required?: string[] };
    for (const [name, prop] of Object.entries(schema.properties)) {
      properties[name] = prop.format === 'date-time' ? localTimeArgument(prop) : prop;
      if (prop.format === 'date-time') times.push(name);
      places.set(name, { in: where });
    }
    for (const name of schema.required ?? []) required.add(name);
  }
  for (const name of tool.alsoRequired ?? []) required.add(name);
  if (writes(tool) && !properties.callId) properties.callId = CALL_ID;
  const input: JsonSchema = { type: 'object', properties, additionalProperties: false };
  if (required.size > 0) input.required = [...required];
  return { input, output: tool.output ? withReadingFields(tool, plain(tool.output)) : DONE, places, times };
}

const DERIVED = new Map(AGENT_TOOLS.map((t) => [t.name, derive(t)]));
/** Per time zone, the input schemas whose date-time examples carry that zone's offset (a few zones per process). */
const ZONED = new Map<string, Map<string, Derived>>();

/** With a clinic's `timeZone`: the date-time arguments' examples carry its offset (`+01:00` in Rome), never `Z`. */
export function derived(tool: AgentTool, timeZone?: string): Derived {
  const base = DERIVED.get(tool.name)!;
  if (timeZone === undefined || base.times.length === 0) return base;
  let zone = ZONED.get(timeZone);
  if (!zone) ZONED.set(timeZone, (zone = new Map()));
  let d = zone.get(tool.name);
  if (!d) {
    const properties = { ...(base.input.properties as Record<string, JsonSchema>) };
    for (const name of base.times) properties[name] = { ...properties[name], examples: ['2027-03-09T09:00', exampleInstant(timeZone)] };
    zone.set(tool.name, (d = { ...base, input: { ...base.input, properties } }));
  }
  return d;
}

/**
 * The input a model is shown: the call's id is `callId` on every tool; the field it stands for
 * (`callIdAs`) is accepted as its alias but not shown, and `callId` is required where it was.
 * The operation's arguments a model has no use for (`unshown`) are accepted, not shown.
 */
export function shownInput(tool: AgentTool, input: JsonSchema): JsonSchema {
  const alias = tool.callIdAs === 'callId' ? undefined : tool.callIdAs;
  const unshown = new Set([...(tool.unshown ?? []), ...(alias ? [alias] : [])]);
  if (unshown.size === 0) return input;
  const properties = Object.fromEntries(Object.entries(input.properties as Record<string, JsonSchema>).filter(([name]) => !unshown.has(name)));
  const wasRequired = alias !== undefined && ((input.required as string[] | undefined) ?? []).includes(alias);
  const required = [...((input.required as string[] | undefined) ?? []).filter((n) => !unshown.has(n)), ...(wasRequired ? ['callId'] : [])];
  const shown: JsonSchema = { ...input, properties };
  if (required.length > 0) shown.required = required;
  else delete shown.required;
  return shown;
}

/** The schemas `tools/list` shows a model: the derived ones cut to what helps it (model-schema.ts), per clinic zone. */
const LISTED = new Map<string, Map<string, { input: JsonSchema; output: JsonSchema }>>();

export function listed(tool: AgentTool, timeZone: string): { input: JsonSchema; output: JsonSchema } {
  let zone = LISTED.get(timeZone);
  if (!zone) LISTED.set(timeZone, (zone = new Map()));
  let shown = zone.get(tool.name);
  if (!shown)
    zone.set(tool.name, (shown = { input: inputForModel(shownInput(tool, derived(tool, timeZone).input)), output: outputForModel(derived(tool).output) }));
  return shown;
}

/** MCP's annotations: a GET reads; the rest write, none reaches outside the clinic's data. */
export function annotationsOf(tool: AgentTool): { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint: false } {
  // MCP reads destructiveHint and idempotentHint only when readOnlyHint is false: a read states neither.
  if (readOnly(tool)) return { readOnlyHint: true, openWorldHint: false };
  return { readOnlyHint: false, destructiveHint: tool.destructive ?? false, idempotentHint: tool.idempotent ?? false, openWorldHint: false };
}

const TOOL_NAME = new RegExp(`\\b(${AGENT_TOOLS.map((t) => t.name).join('|')})\\b`, 'g');

/** The tools a text names. */
export function toolsNamed(text: string): string[] {
  return [...text.matchAll(TOOL_NAME)].map((m) => m[1]!);
}

/**
 * The description a connection reads: each sentence whose named tools it may all call, else the
 * sentence's `otherwise` (itself checked the same way), else nothing; the clinic's zone filled in.
 */
export function describe(tool: AgentTool, timeZone: string, callable: ReadonlySet<string>): string {
  const shown = (sentence: Sentence | null): string | null => {
    if (sentence === null) return null;
    const text = typeof sentence === 'string' ? sentence : sentence.text;
    if (toolsNamed(text).every((name) => callable.has(name))) return text;
    return typeof sentence === 'string' ? null : shown(sentence.otherwise);
  };
  return tool.description
    .map(shown)
    .filter((text): text is string => text !== null)
    .join(' ')
    .replaceAll('{timeZone}', timeZone);
}

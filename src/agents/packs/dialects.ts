/**
 * A tool's input schema in each platform's JSON Schema dialect. The registry's schema is the
 * operations' own (TypeBox: formats, lengths, examples, `['string','null']` for a field that may be
 * cleared); each platform accepts only part of JSON Schema and refuses or ignores the rest, so the
 * packs rewrite it here. The server still checks every argument against the full schema.
 */
import type { JsonSchema } from '../registry.js';

/**
 * The arguments a runner fills itself: the call's id comes from the platform (Vapi's `call.id`,
 * Retell's `call.call_id`, the `X-Call-Id` header), so no model is asked to invent one.
 */
const FILLED_BY_RUNNER = new Set(['callId']);

function types(schema: JsonSchema): string[] {
  const t = schema.type;
  return Array.isArray(t) ? (t as string[]) : typeof t === 'string' ? [t] : [];
}

/** The schema without its `null` alternative (a field that may be cleared is, to a model, optional). */
function withoutNull(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  const ts = types(schema).filter((t) => t !== 'null');
  if (Array.isArray(schema.type)) out.type = ts.length === 1 ? ts[0] : ts;
  if (Array.isArray(schema.enum)) out.enum = (schema.enum as unknown[]).filter((v) => v !== null);
  if (Array.isArray(schema.anyOf)) {
    const rest = (schema.anyOf as JsonSchema[]).filter((s) => !(s.type === 'null'));
    delete out.anyOf;
    if (rest.length === 1) Object.assign(out, rest[0]);
    else out.anyOf = rest;
  }
  return out;
}

/** The tool's arguments as a model should fill them on a platform whose runner supplies the call id. */
function platformArguments(input: JsonSchema): JsonSchema {
  const properties = Object.fromEntries(Object.entries(input.properties as Record<string, JsonSchema>).filter(([name]) => !FILLED_BY_RUNNER.has(name)));
  const required = ((input.required as string[] | undefined) ?? []).filter((name) => !FILLED_BY_RUNNER.has(name));
  const out: JsonSchema = { ...input, properties };
  delete out.required;
  if (required.length > 0) out.required = required;
  return out;
}

function clean(schema: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema)) as JsonSchema;
}

/** `patientId` → `Patient id`: the description of a field the operation left undescribed. */
function humanName(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const FORMAT_WORDS: Record<string, string> = {
  uuid: 'a UUID',
  'date-time': 'an ISO 8601 date-time',
  date: 'an ISO 8601 date (YYYY-MM-DD)',
  email: 'an e-mail address',
  uri: 'an absolute URL',
};

/** The constraints a dialect drops, said in words so that the model still follows them. */
function constraintWords(schema: JsonSchema, keep: ReadonlySet<string>): string[] {
  const words: string[] = [];
  if (!keep.has('format') && typeof schema.format === 'string') words.push(`Format: ${FORMAT_WORDS[schema.format] ?? schema.format}.`);
  if (!keep.has('maxLength') && typeof schema.maxLength === 'number') words.push(`At most ${schema.maxLength} characters.`);
  if (!keep.has('minimum') && typeof schema.minimum === 'number' && typeof schema.maximum === 'number')
    words.push(`From ${schema.minimum} to ${schema.maximum}.`);
  if (!keep.has('maxItems') && typeof schema.maxItems === 'number') words.push(`At most ${schema.maxItems} items.`);
  return words;
}

function describeField(name: string, schema: JsonSchema, keep: ReadonlySet<string>): string | undefined {
  const base = typeof schema.description === 'string' ? schema.description : undefined;
  const extra = constraintWords(schema, keep);
  if (!base && extra.length === 0) return undefined;
  return [base ?? humanName(name), ...extra].join(base && !/[.!?]$/.test(base) ? '. ' : ' ');
}

// ---------------------------------------------------------------------------------------------
// OpenAI strict mode (Structured Outputs' supported subset of JSON Schema, function calling with
// `strict: true`): every object has `additionalProperties: false` and lists every property in
// `required`; an optional property becomes nullable (the model sends null for "not given"); only
// the supported keywords: string `pattern` and `format` (date-time, time, date, duration, email,
// hostname, ipv4, ipv6, uuid), number `minimum`/`maximum`/`exclusive*`/`multipleOf`, array
// `minItems`/`maxItems`, `enum`, `const`, `anyOf`, `description`. Not `minLength`, `maxLength`,
// `default`, `examples`, `uniqueItems`, or a format such as `uri`.
// ---------------------------------------------------------------------------------------------

const OPENAI_STRICT_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'description',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  '$defs',
  '$ref',
]);
const OPENAI_STRICT_FORMATS: ReadonlySet<string> = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

function nullable(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.anyOf)) {
    return (schema.anyOf as JsonSchema[]).some((s) => s.type === 'null') ? schema : { ...schema, anyOf: [...(schema.anyOf as JsonSchema[]), { type: 'null' }] };
  }
  const ts = types(schema);
  if (ts.length === 0) return { anyOf: [schema, { type: 'null' }] };
  const out: JsonSchema = { ...schema, type: ts.includes('null') ? ts : [...ts, 'null'] };
  if (Array.isArray(schema.enum) && !(schema.enum as unknown[]).includes(null)) out.enum = [...(schema.enum as unknown[]), null];
  return out;
}

function strictNode(name: string, schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!OPENAI_STRICT_KEYWORDS.has(key)) continue;
    if (key === 'format' && !OPENAI_STRICT_FORMATS.has(value as string)) continue;
    out[key] = value;
  }
  const description = describeField(name, schema, strictKept(schema));
  if (description) out.description = description;
  if (schema.items && typeof schema.items === 'object') out.items = strictNode(name, schema.items as JsonSchema);
  if (Array.isArray(schema.anyOf)) out.anyOf = (schema.anyOf as JsonSchema[]).map((s) => strictNode(name, s));
  if (types(schema).includes('object') || schema.properties) {
    const properties = (schema.properties as Record<string, JsonSchema> | undefined) ?? {};
    const required = new Set((schema.required as string[] | undefined) ?? []);
    out.type = schema.type ?? 'object';
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([key, prop]) => {
        const strict = strictNode(key, prop);
        return [key, required.has(key) ? strict : nullable(strict)];
      }),
    );
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  return out;
}

/** Which dropped keywords to put into words: a format only when strict mode does not take it. */
function strictKept(schema: JsonSchema): ReadonlySet<string> {
  return typeof schema.format === 'string' && !OPENAI_STRICT_FORMATS.has(schema.format)
    ? new Set([...OPENAI_STRICT_KEYWORDS].filter((k) => k !== 'format'))
    : OPENAI_STRICT_KEYWORDS;
}

export function openAiStrict(input: JsonSchema): JsonSchema {
  return strictNode('', clean(platformArguments(input)));
}

// ---------------------------------------------------------------------------------------------
// ElevenLabs webhook tools (api_schema): a literal is `{type: string|integer|number|boolean,
// description, enum (strings only)}`, an array `{type: 'array', description, items}`, an object
// `{type: 'object', description, properties, required}`. No null, no anyOf, no format or length:
// those go into the description, which every field must have.
// ---------------------------------------------------------------------------------------------

const ELEVENLABS_KEYWORDS: ReadonlySet<string> = new Set(['type', 'description', 'enum', 'properties', 'required', 'items']);
const ELEVENLABS_LITERAL_TYPES: ReadonlySet<string> = new Set(['string', 'integer', 'number', 'boolean']);

function elevenNode(name: string, raw: JsonSchema): JsonSchema {
  const schema = withoutNull(raw);
  let type = types(schema)[0];
  if (Array.isArray(schema.anyOf) || types(schema).length > 1) type = 'string';
  const description = describeField(name, schema, ELEVENLABS_KEYWORDS) ?? humanName(name);
  if (type === 'object' || schema.properties) {
    const properties = (schema.properties as Record<string, JsonSchema> | undefined) ?? {};
    return {
      type: 'object',
      description,
      properties: Object.fromEntries(Object.entries(properties).map(([key, prop]) => [key, elevenNode(key, prop)])),
      required: ((schema.required as string[] | undefined) ?? []).filter((key) => key in properties),
    };
  }
  if (type === 'array')
    return { type: 'array', description, items: elevenNode(`${name} item`, (schema.items as JsonSchema | undefined) ?? { type: 'string' }) };
  const literal: JsonSchema = { type: type && ELEVENLABS_LITERAL_TYPES.has(type) ? type : 'string', description };
  if (literal.type === 'string' && Array.isArray(schema.enum)) literal.enum = (schema.enum as unknown[]).filter((v) => typeof v === 'string');
  else if (Array.isArray(schema.enum)) literal.description = `${description} One of: ${(schema.enum as unknown[]).join(', ')}.`;
  return literal;
}

/** The request body schema of an ElevenLabs webhook tool (an object of literal, array and object fields). */
export function elevenLabsBody(input: JsonSchema, description: string): JsonSchema {
  const body = elevenNode('arguments', clean(platformArguments(input)));
  return { ...body, description };
}

// ---------------------------------------------------------------------------------------------
// Vapi and Retell take OpenAI-style (non-strict) function parameters; their editors refuse
// `['string','null']` types and TypeBox's `examples`, so a field that may be cleared is offered
// as optional and the examples are dropped.
// ---------------------------------------------------------------------------------------------

const PLAIN_DROPPED = new Set(['examples', 'default', '$id', 'title']);

function plainNode(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(withoutNull(schema))) {
    if (PLAIN_DROPPED.has(key)) continue;
    if (key === 'properties') out.properties = Object.fromEntries(Object.entries(value as Record<string, JsonSchema>).map(([k, v]) => [k, plainNode(v)]));
    else if (key === 'items' && value && typeof value === 'object') out.items = plainNode(value as JsonSchema);
    else out[key] = value;
  }
  return out;
}

export function plainParameters(input: JsonSchema): JsonSchema {
  return plainNode(clean(platformArguments(input)));
}

/**
 * The schemas a model reads (MCP `tools/list`), cut to what helps it choose and fill a call.
 * A platform fetches the list at every new session and a model pays for every byte of it in its
 * context, so: inputs keep their types, enums, bounds of numbers and descriptions, and a time's
 * two examples (local, and with the clinic's offset); they lose the other examples, the patterns
 * and the string lengths, and a null alternative (the server still checks them against the full schema, `derived().input`,
 * and a wrong field comes back named). Outputs keep only their shape (types and fields, two
 * levels deep): what a field means is in the tool's description and in docs/agents.md. An output
 * is looser than the full schema, never stricter, so an answer valid for the full output schema
 * is valid for the one listed (MCP clients check `structuredContent` against it).
 */
import { LOCAL_OR_INSTANT } from './local-time.js';

export type JsonSchema = Record<string, unknown>;

/** The generic description of every id, said once in docs/agents.md instead of once per field. */
const UUID_BOILERPLATE = /^UUID \(/;
const INPUT_DROPPED = new Set(['pattern', 'minLength', 'maxLength', '$id', 'title']);
const OUTPUT_KEPT = new Set(['type', 'properties', 'items', 'anyOf', 'const']);

function mapProperties(properties: unknown, each: (schema: JsonSchema) => JsonSchema): JsonSchema {
  return Object.fromEntries(Object.entries(properties as Record<string, JsonSchema>).map(([name, schema]) => [name, each(schema)]));
}

export function inputForModel(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (INPUT_DROPPED.has(key)) continue;
    if (key === 'description' && typeof value === 'string' && UUID_BOILERPLATE.test(value)) continue;
    // A time's examples show the two forms it takes (local, and with the clinic's offset); others go.
    if (key === 'examples' && Array.isArray(value)) {
      if (schema.pattern === LOCAL_OR_INSTANT) out.examples = value.slice(0, 2);
    } else if (key === 'properties') out.properties = mapProperties(value, inputForModel);
    else if (key === 'items' && value && typeof value === 'object' && !Array.isArray(value)) out.items = inputForModel(value as JsonSchema);
    else if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) out[key] = value.map((s) => inputForModel(s as JsonSchema));
    // An argument that may be null is, to a model, one it may leave out (null clears it over REST).
    else if (key === 'type' && Array.isArray(value)) {
      const types = value.filter((t) => t !== 'null');
      out.type = types.length === 1 ? types[0] : types;
    } else if (key === 'enum' && Array.isArray(value)) out.enum = value.filter((v) => v !== null);
    else out[key] = value;
  }
  return out;
}

/**
 * How deep an output's fields are shown: the answer's own fields and, one level down, those of its
 * objects and of a list's items; deeper objects show only that they are objects. A model reads the
 * whole answer anyway; the schema tells it what to look for.
 */
const OUTPUT_DEPTH = 2;

export function outputForModel(schema: JsonSchema, depth = 0): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!OUTPUT_KEPT.has(key)) continue;
    if (key === 'properties') {
      if (depth < OUTPUT_DEPTH) out.properties = mapProperties(value, (s) => outputForModel(s, depth + 1));
    } else if (key === 'items' && value && typeof value === 'object' && !Array.isArray(value)) {
      if (depth < OUTPUT_DEPTH) out.items = outputForModel(value as JsonSchema, depth);
    } else if (key === 'anyOf' && Array.isArray(value)) out.anyOf = value.map((s) => outputForModel(s as JsonSchema, depth));
    else out[key] = value;
  }
  return out;
}

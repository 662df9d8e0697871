/**
 * The schemas a model reads (MCP `tools/list`), cut to what helps it choose and fill a call.
 * A platform fetches the list at every new session and a model pays for every byte of it in its
 * context, so: inputs keep their types, enums, bounds of numbers, descriptions and one example,
 * and at most two examples, and lose the patterns and string lengths (the server still checks them against the full schema:
 * `derived().input`, and a wrong field comes back named); outputs keep only their shape (types,
 * properties, items, enums): what a field means is in the tool's description and in docs/agents.md.
 * Both are looser than the full schemas, never stricter, so an answer valid for the full output
 * schema is valid for the one listed (MCP clients check `structuredContent` against it).
 */
export type JsonSchema = Record<string, unknown>;

/** The generic description of every id, said once in docs/agents.md instead of once per field. */
const UUID_BOILERPLATE = /^UUID \(/;
const INPUT_DROPPED = new Set(['pattern', 'minLength', 'maxLength', '$id', 'title']);
const OUTPUT_KEPT = new Set(['type', 'properties', 'items', 'enum', 'anyOf', 'const']);

function mapProperties(properties: unknown, each: (schema: JsonSchema) => JsonSchema): JsonSchema {
  return Object.fromEntries(Object.entries(properties as Record<string, JsonSchema>).map(([name, schema]) => [name, each(schema)]));
}

export function inputForModel(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (INPUT_DROPPED.has(key)) continue;
    if (key === 'description' && typeof value === 'string' && UUID_BOILERPLATE.test(value)) continue;
    if (key === 'examples' && Array.isArray(value)) out.examples = value.slice(0, 2);
    else if (key === 'properties') out.properties = mapProperties(value, inputForModel);
    else if (key === 'items' && value && typeof value === 'object' && !Array.isArray(value)) out.items = inputForModel(value as JsonSchema);
    else if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) out[key] = value.map((s) => inputForModel(s as JsonSchema));
    else out[key] = value;
  }
  return out;
}

export function outputForModel(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!OUTPUT_KEPT.has(key)) continue;
    if (key === 'properties') out.properties = mapProperties(value, outputForModel);
    else if (key === 'items' && value && typeof value === 'object' && !Array.isArray(value)) out.items = outputForModel(value as JsonSchema);
    else if (key === 'anyOf' && Array.isArray(value)) out.anyOf = value.map((s) => outputForModel(s as JsonSchema));
    else out[key] = value;
  }
  return out;
}

/**
 * The clinic-local reading of an appointment's start in a tool's answer. The REST Appointment has
 * exactly the contract's fields (spec 2.2: "no other properties"), so the reading a model needs to
 * say the time (`localDate`, `localTime`, `label`, as slots carry) is added by the tool layer, to
 * the answer of the tools that return appointments, and to their output schemas.
 */
import { localReading, localReadingFields } from '../lib/local-reading.js';
import type { JsonSchema } from './model-schema.js';
import type { AgentTool } from './tool.js';

/** The reading's fields as JSON Schema (TypeBox's markers are not enumerable). */
const READING: Record<string, JsonSchema> = JSON.parse(JSON.stringify(localReadingFields('the start (the end is `end`, not read out)')));

/** The answer with each appointment's start read in the clinic's zone: the answer itself, or a page's `data`. */
export function withStartReadings(tool: AgentTool, data: unknown, timeZone: string): unknown {
  if (!tool.localStart || data === null || typeof data !== 'object') return data;
  const read = (item: unknown) => {
    const start = (item as { start?: unknown } | null)?.start;
    return typeof start === 'string' ? { ...(item as object), ...localReading(new Date(start), timeZone) } : item;
  };
  if (tool.localStart === 'one') return read(data);
  const items = (data as { data?: unknown }).data;
  return Array.isArray(items) ? { ...data, data: items.map(read) } : data;
}

/** The tool's output schema with the reading's fields on each appointment. */
export function withReadingFields(tool: AgentTool, output: JsonSchema): JsonSchema {
  const extend = (object: JsonSchema): JsonSchema => ({
    ...object,
    properties: { ...(object.properties as Record<string, JsonSchema>), ...READING },
    required: [...((object.required as string[] | undefined) ?? []), ...Object.keys(READING)],
  });
  if (tool.localStart === 'one') return extend(output);
  if (tool.localStart === 'page') {
    const properties = output.properties as Record<string, JsonSchema>;
    const list = properties.data!;
    return { ...output, properties: { ...properties, data: { ...list, items: extend(list.items as JsonSchema) } } };
  }
  return output;
}

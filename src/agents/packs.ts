/**
 * Tool packs (issue 35 part 6): the registry's tools as ready-to-paste definitions in each REST
 * platform's format, pointing at the REST operations (Vapi at its tool-calls runner, since Vapi
 * ignores every answer that is not 200). Generated, never written by hand.
 */
import { derived, describe, type JsonSchema } from './registry.js';
import type { AgentTool } from './tool.js';

export const PLATFORMS = ['openai', 'vapi', 'retell', 'elevenlabs'] as const;
export type Platform = (typeof PLATFORMS)[number];

export interface PackEntry {
  name: string;
  operation: { method: string; path: string; operationId: string };
  definition: Record<string, unknown>;
}

const KEY_HEADER = { Authorization: 'Bearer <API key of the clinic>' };

/** `/v1/calendars/:id/availability` → `/v1/calendars/{calendarId}/availability` (the tool's argument names). */
function pathTemplate(tool: AgentTool): string {
  return tool.operation.url.replace(/:([A-Za-z0-9_]+)/g, (_, param: string) => `{${tool.params?.names[param] ?? param}}`);
}

function split(tool: AgentTool, timeZone: string) {
  const { input, places } = derived(tool, timeZone);
  const properties = input.properties as Record<string, JsonSchema>;
  const required = new Set((input.required as string[] | undefined) ?? []);
  const part = (where: 'path' | 'query' | 'body') => {
    const names = [...places].filter(([, p]) => p.in === where).map(([n]) => n);
    return { type: 'object', properties: Object.fromEntries(names.map((n) => [n, properties[n]!])), required: names.filter((n) => required.has(n)) };
  };
  return { input, path: part('path'), query: part('query'), body: part('body') };
}

export function packEntry(tool: AgentTool, platform: Platform, baseUrl: string, timeZone: string): PackEntry {
  const description = describe(tool, timeZone);
  const path = pathTemplate(tool);
  const { input, path: pathParams, query, body } = split(tool, timeZone);
  const operation = { method: tool.operation.method, path, operationId: tool.operation.operationId };
  let definition: Record<string, unknown>;
  switch (platform) {
    case 'openai':
      definition = { type: 'function', name: tool.name, description, parameters: input };
      break;
    case 'vapi':
      definition = {
        type: 'function',
        function: { name: tool.name, description, parameters: input },
        server: { url: `${baseUrl}/v1/agent-tools/vapi`, headers: KEY_HEADER },
      };
      break;
    case 'retell':
      definition = {
        type: 'custom',
        name: tool.name,
        description,
        url: `${baseUrl}${path}`,
        method: tool.operation.method,
        headers: KEY_HEADER,
        parameters: input,
        args_at_root: true,
        speak_during_execution: false,
        timeout_ms: 10_000,
      };
      break;
    case 'elevenlabs':
      definition = {
        type: 'webhook',
        name: tool.name,
        description,
        api_schema: {
          url: `${baseUrl}${path}`,
          method: tool.operation.method,
          path_params_schema: pathParams.properties,
          ...(Object.keys(query.properties).length > 0 ? { query_params_schema: query } : {}),
          ...(tool.body ? { request_body_schema: body } : {}),
          request_headers: KEY_HEADER,
        },
      };
      break;
  }
  return { name: tool.name, operation, definition };
}

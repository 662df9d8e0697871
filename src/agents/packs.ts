/**
 * Tool packs: the registry's tools as ready-to-paste definitions in each REST
 * platform's format, each pointing at a runner that answers in the form the platform passes to its
 * model: Vapi at its tool-calls runner, Retell at its custom-function runner, ElevenLabs and OpenAI
 * at the generic runner (`/v1/agent-tools/run/{tool}`). No pack points at a REST operation itself:
 * Retell cannot fill a path placeholder nor send arguments with a GET, ElevenLabs and Vapi do not
 * show a model the body of a non-2xx answer, and OpenAI's strict mode sends `null` for every
 * optional argument, which the operations refuse. Generated, never written by hand; every URL
 * starts with `baseUrl`, the deployment's PUBLIC_URL (never the request's Host).
 */
import { derived, describe, shownInput } from './registry.js';
import type { AgentTool } from './tool.js';
import { elevenLabsBody, openAiStrict, plainParameters } from './packs/dialects.js';

export const PLATFORMS = ['openai', 'vapi', 'retell', 'elevenlabs'] as const;
export type Platform = (typeof PLATFORMS)[number];

interface PackEntry {
  name: string;
  /** The REST operation the tool performs (informative: the platform calls `endpoint`). */
  operation: { method: string; path: string; operationId: string };
  /** Where the platform (or, for OpenAI, the developer's code) sends the tool call, and with which headers. */
  endpoint: { method: 'POST'; url: string; headers: Record<string, string> };
  definition: Record<string, unknown>;
}

const KEY = 'Bearer <API key of the clinic>';
/** Runners' paths, relative to the base URL. */
const RUNNER_PATHS = { vapi: '/v1/agent-tools/vapi', retell: '/v1/agent-tools/retell', run: '/v1/agent-tools/run' } as const;

/** `/v1/calendars/:id/availability` → `/v1/calendars/{calendarId}/availability` (the tool's argument names). */
function pathTemplate(tool: AgentTool): string {
  return tool.operation.url.replace(/:([A-Za-z0-9_]+)/g, (_, param: string) => `{${tool.params?.names[param] ?? param}}`);
}

/** `callable`: the names of the tools in the pack, which a description may send the model to. */
export function packEntry(tool: AgentTool, platform: Platform, baseUrl: string, timeZone: string, callable: ReadonlySet<string>): PackEntry {
  const description = describe(tool, timeZone, callable);
  const input = shownInput(tool, derived(tool, timeZone).input);
  const operation = { method: tool.operation.method, path: pathTemplate(tool), operationId: tool.operation.operationId };
  const runUrl = `${baseUrl}${RUNNER_PATHS.run}/${tool.name}`;
  switch (platform) {
    case 'openai':
      return {
        name: tool.name,
        operation,
        // OpenAI calls no URL: the developer's code sends the model's arguments here as they are.
        endpoint: { method: 'POST', url: runUrl, headers: { Authorization: KEY, 'Content-Type': 'application/json', 'X-Call-Id': '<id of the conversation>' } },
        definition: { type: 'function', name: tool.name, description, parameters: openAiStrict(input), strict: true },
      };
    case 'vapi': {
      const url = `${baseUrl}${RUNNER_PATHS.vapi}`;
      return {
        name: tool.name,
        operation,
        endpoint: { method: 'POST', url, headers: { Authorization: KEY } },
        definition: {
          type: 'function',
          function: { name: tool.name, description, parameters: plainParameters(input) },
          server: { url, headers: { Authorization: KEY } },
        },
      };
    }
    case 'retell': {
      const url = `${baseUrl}${RUNNER_PATHS.retell}`;
      return {
        name: tool.name,
        operation,
        endpoint: { method: 'POST', url, headers: { Authorization: KEY } },
        definition: {
          type: 'custom',
          name: tool.name,
          description,
          url,
          method: 'POST',
          headers: { Authorization: KEY },
          parameters: plainParameters(input),
          // The whole body ({name, call, args}): the runner reads the tool's name and the call's id from it.
          args_at_root: false,
          speak_during_execution: false,
          speak_after_execution: true,
          timeout_ms: 10_000,
        },
      };
    }
    case 'elevenlabs': {
      const headers = { Authorization: KEY, 'X-Call-Id': '{{system__conversation_id}}' };
      const body = elevenLabsBody(input, `The arguments of ${tool.name}`);
      return {
        name: tool.name,
        operation,
        endpoint: { method: 'POST', url: runUrl, headers },
        definition: {
          type: 'webhook',
          name: tool.name,
          description,
          response_timeout_secs: 20,
          api_schema: {
            url: runUrl,
            method: 'POST',
            request_headers: headers,
            ...(Object.keys(body.properties as object).length > 0 ? { request_body_schema: body } : {}),
          },
        },
      };
    }
  }
}

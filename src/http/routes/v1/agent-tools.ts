/**
 * /v1/agent-tools: the agent tool registry for platforms that call REST, not MCP.
 * The pack lists what the key may call (as tools/list does), each tool pointing at the runner of
 * its platform; the runners (one file each) run the same tools as /mcp and answer 200 with the
 * result or the error, the form each platform passes to its model.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { packEntry, PLATFORMS, type Platform } from '../../../agents/packs.js';
import { READONLY_VALUES, visibleTools } from '../../../agents/visibility.js';
import type { AppContext } from '../../../context.js';
import { StringEnum } from '../../../core/schemas.js';
import { toolScopes } from '../agent-perform.js';
import { filterOf } from '../mcp.js';
import type { App } from '../../types.js';
import { publicBase, TAG } from './agent-runner.js';
import { registerRetellRunner } from './agent-tools-retell.js';
import { registerToolRunner } from './agent-tools-run.js';
import { registerVapiRunner } from './agent-tools-vapi.js';

const PackQuery = Type.Object(
  {
    platform: StringEnum(PLATFORMS, { description: 'The format of the definitions' }),
    readonly: Type.Optional(StringEnum(READONLY_VALUES, { description: '`true` or `1`: only read-only tools' })),
    tools: Type.Optional(Type.String({ maxLength: 2000, description: 'Only these tools, separated by commas' })),
  },
  { additionalProperties: false },
);

const KEY = 'Bearer <API key of the clinic>';
const PACK_EXAMPLE = {
  platform: 'openai',
  baseUrl: 'https://api.example.com',
  data: [
    {
      name: 'get_balance',
      operation: { method: 'GET', path: '/v1/patients/{patientId}/balance', operationId: 'getPatientBalance' },
      endpoint: {
        method: 'POST',
        url: 'https://api.example.com/v1/agent-tools/run/get_balance',
        headers: { Authorization: KEY, 'Content-Type': 'application/json', 'X-Call-Id': '<id of the conversation>' },
      },
      definition: {
        type: 'function',
        name: 'get_balance',
        description: 'What the patient still owes the clinic: the total and the open invoices.',
        parameters: {
          type: 'object',
          properties: { patientId: { type: 'string', format: 'uuid', description: 'The patient (from search_patients)' } },
          required: ['patientId'],
          additionalProperties: false,
        },
        strict: true,
      },
    },
  ],
};

const PackSchema = Type.Object(
  {
    platform: StringEnum(PLATFORMS),
    baseUrl: Type.String({ description: 'The origin every URL of the pack starts with: PUBLIC_URL (without it, the address this service listens on)' }),
    data: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          operation: Type.Object(
            { method: Type.String(), path: Type.String(), operationId: Type.String() },
            { additionalProperties: false, description: 'The REST operation the tool performs' },
          ),
          endpoint: Type.Object(
            { method: Type.Literal('POST'), url: Type.String(), headers: Type.Record(Type.String(), Type.String()) },
            { additionalProperties: false, description: 'Where the tool call is sent, with which headers (for OpenAI: by your code)' },
          ),
          definition: Type.Object({}, { additionalProperties: true, description: 'The definition to paste, in the platform’s format' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, examples: [PACK_EXAMPLE] },
);

export function registerAgentToolRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/agent-tools',
    {
      schema: {
        operationId: 'listAgentTools',
        tags: [TAG],
        summary: 'Ready-to-paste tool definitions for an agent platform',
        description: [
          'The agent tools this key may call (the same list as `tools/list` on `/mcp`: the key’s scopes, an agent key’s own set, `readonly`, `tools`), as definitions in the format of `platform`, each pointing at the runner that answers in the form the platform passes to its model (`endpoint`: method, absolute URL, headers):',
          '- `openai`: function tools valid under `strict: true` (every property required, optional ones nullable, only the keywords strict mode takes); OpenAI calls no URL, so your code sends the call’s arguments to `endpoint` (`POST /v1/agent-tools/run/{tool}`, `null` meaning not given) with the conversation’s id as `X-Call-Id`, and gives the answer back to the model.\n- `vapi`: function tools whose server is `POST /v1/agent-tools/vapi`.\n- `retell`: custom functions calling `POST /v1/agent-tools/retell` with the whole body (`name`, `call`, `args`), so every tool works whatever its REST path or method.\n- `elevenlabs`: webhook tools calling `POST /v1/agent-tools/run/{tool}` with `X-Call-Id: {{system__conversation_id}}`, their body schema in ElevenLabs’ dialect (string, integer, number, boolean, object and array fields, each described).',
          'Every URL starts with the deployment’s PUBLIC_URL (`baseUrl`), never the request’s `Host`. Without PUBLIC_URL it is the address this service listens on (a platform reaches it only on the same network: set PUBLIC_URL for a real agent); behind a proxy (TRUST_PROXY) without PUBLIC_URL the pack is `409 conflict`, reason `public_url_required`, since no address it could give would be right. Replace `<API key of the clinic>` in the headers with the agent’s key. `operation` names the REST operation each tool performs.',
          'Ordered as the tool registry lists them (the steps of a call: the caller, people, the agenda, the office, outbound, chat), the same order as `tools/list`.',
        ].join('\n\n'),
        querystring: PackQuery,
        response: { 200: PackSchema },
      },
      config: { scopes: [], reasons: { conflict: ['public_url_required'] } },
    },
    async (request) => {
      const platform = request.query.platform as Platform;
      const baseUrl = publicBase(ctx, request);
      const tools = visibleTools(filterOf(request), toolScopes(app as unknown as FastifyInstance));
      const names = new Set(tools.map((t) => t.name));
      return { platform, baseUrl, data: tools.map((tool) => packEntry(tool, platform, baseUrl, request.actor.timeZone, names)) };
    },
  );

  registerVapiRunner(app);
  registerRetellRunner(app, ctx);
  registerToolRunner(app);
}

/**
 * /v1/agent-tools (issue 35 part 6): the agent tool registry for platforms that call REST, not MCP.
 * The pack lists what the key may call (as tools/list does); Vapi's runner runs the same tools as
 * /mcp and always answers 200, since Vapi ignores any other answer.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { packEntry, PLATFORMS, type Platform } from '../../../agents/packs.js';
import { errorPayload } from '../../../agents/results.js';
import { toolNamed } from '../../../agents/registry.js';
import { visibleTools } from '../../../agents/visibility.js';
import { StringEnum } from '../../../core/schemas.js';
import { performThroughRoutes, toolScopes } from '../agent-perform.js';
import { callForRequest, filterOf } from '../mcp.js';
import { agentMessageRules, type RateLimits } from '../../rate-limit/limiter.js';
import type { App } from '../../types.js';

const TAG = 'Agent tools';

const PackQuery = Type.Object(
  {
    platform: StringEnum(PLATFORMS, { description: 'The format of the definitions' }),
    readonly: Type.Optional(StringEnum(['true', 'false'] as const, { description: '`true`: only read-only tools' })),
    tools: Type.Optional(Type.String({ maxLength: 2000, description: 'Only these tools, separated by commas' })),
  },
  { additionalProperties: false },
);

const PackSchema = Type.Object(
  {
    platform: StringEnum(PLATFORMS),
    data: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          operation: Type.Object({ method: Type.String(), path: Type.String(), operationId: Type.String() }, { additionalProperties: false }),
          definition: Type.Object({}, { additionalProperties: true, description: 'The definition to paste, in the platform’s format' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const VapiBody = Type.Object(
  {
    message: Type.Object(
      {
        type: Type.Optional(Type.String()),
        toolCallList: Type.Optional(
          Type.Array(
            Type.Object(
              {
                id: Type.String({ minLength: 1, maxLength: 200 }),
                function: Type.Object({ name: Type.String({ maxLength: 100 }), arguments: Type.Optional(Type.Unknown()) }, { additionalProperties: true }),
              },
              { additionalProperties: true },
            ),
            { maxItems: 20 },
          ),
        ),
        call: Type.Optional(Type.Object({ id: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: true })),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);

const VapiResults = Type.Object(
  {
    results: Type.Array(
      Type.Object({ toolCallId: Type.String(), result: Type.Optional(Type.String()), error: Type.Optional(Type.String()) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);

/** One line: Vapi reads the string as it is, and a newline ends it for some voice models. */
const oneLine = (value: unknown) => JSON.stringify(value).replace(/\u2028|\u2029/g, ' ');

function baseUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

export function registerAgentToolRoutes(app: App): void {
  app.get(
    '/v1/agent-tools',
    {
      schema: {
        operationId: 'listAgentTools',
        tags: [TAG],
        summary: 'Ready-to-paste tool definitions for an agent platform',
        description: [
          'The agent tools this key may call (the same list as `tools/list` on `/mcp`: the key’s scopes, an agent key’s own set, `readonly`, `tools`), as definitions in the format of `platform`: `openai` (function tools), `vapi` (function tools whose server is `POST /v1/agent-tools/vapi`), `retell` (custom functions calling the REST operation, arguments at the root), `elevenlabs` (webhook tools with path, query and body schemas).',
          'Each entry names the REST operation it performs (`operation`: method, path with `{argument}` placeholders, operationId). Replace `<API key of the clinic>` in the headers with the agent’s key. Retell does not fill path placeholders: tools with one are easier through `/mcp`, which Retell calls natively.',
          'Ordered as the tool registry lists them (the steps of a call: the caller, people, the agenda, the office, outbound, chat), the same order as `tools/list`.',
        ].join('\n\n'),
        querystring: PackQuery,
        response: { 200: PackSchema },
      },
      config: { scopes: [] },
    },
    async (request) => {
      const platform = request.query.platform as Platform;
      const tools = visibleTools(filterOf(request), toolScopes(app as unknown as FastifyInstance));
      return { platform, data: tools.map((tool) => packEntry(tool, platform, baseUrl(request), request.actor.timeZone)) };
    },
  );

  app.post(
    '/v1/agent-tools/vapi',
    {
      schema: {
        operationId: 'runVapiToolCalls',
        tags: [TAG],
        summary: 'Run Vapi tool calls',
        description: [
          'Vapi’s `tool-calls` server message: each entry of `message.toolCallList` (`id`, `function.name`, `function.arguments` as an object or a JSON string) runs as the same agent tool as on `/mcp`, with this key, one after the other. The call’s id is `message.call.id` (or `X-Call-Id`): a retried writing tool answers its first result and writes nothing more.',
          'Always `200` once the key is accepted (Vapi ignores any other answer): `results` holds, per tool call, `toolCallId` and `result` (the operation’s answer as one-line JSON) or `error` (one-line JSON with `code`, `message`, `nextStep` and `details`). With the clinic’s AI off, every result is the `ai_disabled` error. Each tool call costs the rate budget of the operation it performs.',
        ].join('\n\n'),
        body: VapiBody,
        response: { 200: VapiResults },
      },
      config: {
        scopes: [],
        aiPerToolCall: true,
        ownWindows: (request: FastifyRequest, limits: RateLimits) => agentMessageRules(limits, request.auth.keyId),
        bodyIssues: false,
      },
    },
    async (request, reply) => {
      const perform = performThroughRoutes(app as unknown as FastifyInstance, request);
      const header = request.headers['x-call-id'];
      const callId = typeof header === 'string' ? header : request.body.message.call?.id;
      const results = [];
      for (const call of request.body.message.toolCallList ?? []) {
        let args: unknown = call.function.arguments ?? {};
        if (typeof args === 'string') {
          try {
            args = JSON.parse(args);
          } catch {
            args = null;
          }
        }
        const outcome =
          args !== null && typeof args === 'object' && !Array.isArray(args)
            ? await callForRequest(request, perform, toolNamed(call.function.name), call.function.name, args as Record<string, unknown>, callId)
            : ({
                ok: false,
                error: {
                  code: 'invalid_request',
                  message: 'Gli argomenti devono essere un oggetto JSON.',
                  details: { in: 'arguments', issues: [{ path: '', message: 'deve essere un oggetto JSON' }] },
                },
              } as const);
        results.push(
          outcome.ok
            ? { toolCallId: call.id, result: oneLine(outcome.data ?? { done: true }) }
            : { toolCallId: call.id, error: oneLine(errorPayload(outcome)) },
        );
      }
      return reply.status(200).send({ results });
    },
  );
}

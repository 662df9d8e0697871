/**
 * Vapi's runner: `POST /v1/agent-tools/vapi` answers Vapi's `tool-calls` server message. Vapi
 * ignores any answer but a 200 and matches results by `toolCallId`, so every tool call of the
 * message gets its result or its error in one 200, a malformed entry and one beyond the limit too.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../../core/errors.js';
import type { App } from '../../types.js';
import { headerOf, RUNNER_CONFIG, TAG, toolCaller } from './agent-runner.js';

/** Tool calls run per message; the rest answer `too_many_tool_calls` (a model asks for a few at once). */
const VAPI_MAX_TOOL_CALLS = 20;

const EXAMPLE = {
  message: {
    type: 'tool-calls',
    timestamp: 1772443800000,
    call: { id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d' },
    toolCallList: [{ id: 'call_7Hq2bX9kLm3nPz', name: 'find_slots', arguments: { calendarId: '3f2b8c1e-9a4d-4e2b-8f1a-0c9d8e7f6a5b', limit: 3 } }],
  },
};

const VapiBody = Type.Object(
  {
    message: Type.Object(
      {
        type: Type.Optional(Type.String({ description: '`tool-calls`' })),
        toolCallList: Type.Optional(
          Type.Array(Type.Unknown(), {
            description:
              'The tool calls: `{id, name, arguments}` (as Vapi’s docs show it) or `{id, type: "function", function: {name, arguments}}`; `arguments` an object or JSON text',
          }),
        ),
        toolWithToolCallList: Type.Optional(
          Type.Array(Type.Unknown(), {
            description: 'Each tool with its call (`toolCall`: `{id, function: {name, arguments}}`): read when `toolCallList` is absent',
          }),
        ),
        call: Type.Optional(Type.Object({ id: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: true })),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true, examples: [EXAMPLE] },
);

const VapiResults = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        {
          toolCallId: Type.String({ description: 'The entry’s `id`; `#<position>` (from 1) for an entry without one' }),
          result: Type.Optional(Type.String({ description: 'The operation’s answer, one-line JSON' })),
          error: Type.Optional(Type.String({ description: 'One-line JSON: `code`, `message`, `nextStep`, `details`' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** One line: Vapi reads the string as it is, and a newline ends it for some voice models. */
const oneLine = (value: unknown) => JSON.stringify(value).replace(/\u2028|\u2029/g, ' ');

type Entry = { id: unknown; name: unknown; args: unknown };

const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** An entry of either list, in either of Vapi's shapes, as `{id, name, args}`. */
function entriesOf(message: { toolCallList?: unknown[]; toolWithToolCallList?: unknown[] }): Entry[] {
  if (message.toolCallList) {
    return message.toolCallList.map((raw) => {
      const e = record(raw);
      const fn = record(e.function);
      return { id: e.id, name: e.name ?? fn.name, args: e.arguments ?? fn.arguments };
    });
  }
  // In toolWithToolCallList, `function.parameters` of the tool is its schema: the arguments are the toolCall's.
  return (message.toolWithToolCallList ?? []).map((raw) => {
    const call = record(record(raw).toolCall);
    const fn = record(call.function);
    return { id: call.id, name: fn.name ?? call.name, args: fn.arguments ?? call.arguments ?? fn.parameters };
  });
}

const tooMany = (position: number) => ({
  code: 'too_many_tool_calls',
  message: `Al massimo ${VAPI_MAX_TOOL_CALLS} strumenti per messaggio: questa chiamata non è stata eseguita.`,
  nextStep: `This tool call was not run (at most ${VAPI_MAX_TOOL_CALLS} per message): call it again on its own.`,
  details: { limit: VAPI_MAX_TOOL_CALLS, position },
});

export function registerVapiRunner(app: App): void {
  app.post(
    '/v1/agent-tools/vapi',
    {
      schema: {
        operationId: 'runVapiToolCalls',
        tags: [TAG],
        summary: 'Run Vapi tool calls',
        description: [
          'Vapi’s `tool-calls` server message. Each entry of `message.toolCallList` runs as the same agent tool as on `/mcp`, with this key, one after the other, in either shape Vapi sends: `{id, name, arguments}` (Vapi’s documentation) or `{id, type: "function", function: {name, arguments}}`; `arguments` an object or JSON text. A message with only `message.toolWithToolCallList` runs each entry’s `toolCall`. The call’s id is `message.call.id` (or `X-Call-Id`): a retried writing tool answers its first result and writes nothing more.',
          `Always \`200\` once the key is accepted and the body is a Vapi message (Vapi ignores any other answer): \`results\` holds one entry per tool call, in order: \`toolCallId\` and \`result\` (the operation’s answer as one-line JSON) or \`error\` (one-line JSON with \`code\`, \`message\`, \`nextStep\` and \`details\`). A malformed entry (no \`id\`, no name, arguments that are not a JSON object) answers \`invalid_request\` with \`details.issues\`; its \`toolCallId\` is \`#<position>\` when it has no id. At most ${VAPI_MAX_TOOL_CALLS} tool calls run per message: each one beyond answers the error \`too_many_tool_calls\` (\`details.limit\`, \`details.position\`) and is not run. With the clinic’s AI off, every result is the \`ai_disabled\` error. Each tool call costs the rate budget of the operation it performs. A body without \`message\`, or a message with neither list, is \`400\`.`,
        ].join('\n\n'),
        body: VapiBody,
        response: { 200: VapiResults },
      },
      config: RUNNER_CONFIG,
    },
    async (request, reply) => {
      const { message } = request.body;
      if (!message.toolCallList && !message.toolWithToolCallList) {
        throw ApiError.invalid('body', [{ path: 'message.toolCallList', message: 'obbligatorio: il messaggio tool-calls di Vapi ha toolCallList' }]);
      }
      const call = toolCaller(app as unknown as FastifyInstance, request);
      const callId = headerOf(request, 'x-call-id') ?? message.call?.id;
      const results = [];
      for (const [index, entry] of entriesOf(message).entries()) {
        const hasId = typeof entry.id === 'string' && entry.id.length > 0;
        const toolCallId = hasId ? (entry.id as string) : `#${index + 1}`;
        if (index >= VAPI_MAX_TOOL_CALLS) {
          results.push({ toolCallId, error: oneLine(tooMany(index + 1)) });
          continue;
        }
        const outcome = await call(entry.name, entry.args, callId, hasId ? [] : [{ path: 'id', message: 'manca l’id della chiamata' }]);
        results.push(outcome.ok ? { toolCallId, result: oneLine(outcome.data ?? { done: true }) } : { toolCallId, error: oneLine(outcome.payload) });
      }
      return reply.status(200).send({ results });
    },
  );
}

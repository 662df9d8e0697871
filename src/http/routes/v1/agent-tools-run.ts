/**
 * The generic runner: `POST /v1/agent-tools/run/{tool}`, one tool call whose body is the arguments.
 * For OpenAI (whose model names a function and the developer's code makes the request) and
 * ElevenLabs webhook tools: both packs point here. It answers 200 with `{result}` or `{error}` once
 * the key is accepted, since ElevenLabs gives its agent only a 2xx answer, and it reads `null` as
 * "not given", since OpenAI's strict mode sends every optional argument as null.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../types.js';
import { answerOf, headerOf, RUNNER_CONFIG, TAG, toolCaller } from './agent-runner.js';

const ToolErrorSchema = Type.Object(
  {
    code: Type.String({ description: 'The API error code (`invalid_request`, `no_availability`, `forbidden`, …)' }),
    message: Type.String({ description: 'In Italian, for people' }),
    nextStep: Type.String({ description: 'What the model should do next, in English' }),
    details: Type.Object({}, { additionalProperties: true, description: 'The wrong fields (`issues`), a taken slot’s `alternatives`, `retryAfter`, …' }),
  },
  { additionalProperties: false },
);

export const ToolAnswerSchema = Type.Object(
  {
    result: Type.Optional(Type.Unknown({ description: 'The operation’s answer (`{"done": true}` for an operation that answers no body)' })),
    error: Type.Optional(ToolErrorSchema),
  },
  {
    additionalProperties: false,
    examples: [
      { result: { data: [{ start: '2026-03-02T09:30:00.000Z', end: '2026-03-02T10:00:00.000Z', doctorId: '3f2b8c1e-9a4d-4e2b-8f1a-0c9d8e7f6a5b' }] } },
    ],
  },
);

const RunParams = Type.Object(
  { tool: Type.String({ minLength: 1, maxLength: 100, description: 'The tool’s name (`find_slots`)' }) },
  { additionalProperties: false },
);

export function registerToolRunner(app: App): void {
  app.post(
    '/v1/agent-tools/run/:tool',
    {
      schema: {
        operationId: 'runAgentTool',
        tags: [TAG],
        summary: 'Run one agent tool (OpenAI, ElevenLabs)',
        description: [
          'Runs the tool of the path with this key, as `/mcp` does: the body is its arguments (a JSON object, as the model wrote them; none is `{}`), `null` anywhere meaning “not given” (OpenAI’s strict mode sends every optional argument, null when the model leaves it out). `X-Call-Id` is the conversation’s id: a retried writing tool answers its first result and writes nothing more.',
          'Always `200` once the key is accepted: `{"result": …}` (the operation’s answer) or `{"error": {code, message, nextStep, details}}` (an unknown tool, wrong arguments — every wrong one in `details.issues` —, a refusal of the clinic’s rules, `ai_disabled`), so a platform that shows its model only a 2xx answer shows it the error too. The tool call costs the rate budget of the operation it performs.',
          'OpenAI: send the function call’s `arguments` here as the body, then give the answer back to the model as the call’s output. ElevenLabs: the pack’s webhook tools call this with `X-Call-Id: {{system__conversation_id}}`.',
        ].join('\n\n'),
        params: RunParams,
        body: Type.Unknown({
          description: 'The tool’s arguments, a JSON object',
          examples: [{ calendarId: '3f2b8c1e-9a4d-4e2b-8f1a-0c9d8e7f6a5b', spread: 'day', limit: 3, patientId: null }],
        }),
        response: { 200: ToolAnswerSchema },
      },
      config: RUNNER_CONFIG,
    },
    async (request, reply) => {
      const call = toolCaller(app as unknown as FastifyInstance, request, { nullsAbsent: true });
      const outcome = await call(request.params.tool, request.body ?? {}, headerOf(request, 'x-call-id'));
      return reply.status(200).send(answerOf(outcome));
    },
  );
}

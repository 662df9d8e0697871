/**
 * Retell's runner. Retell's custom function sends `POST {name, call, args}` to one URL (or, with
 * "args at root", only the arguments: then the tool is named by the path) and passes the answer's
 * body to its model, so the answer is 200 with `{result}` or `{error}` as the other runners'. Its
 * call's id (`call.call_id`) is the tool call's, so a retried writing tool writes nothing more.
 * When the clinic has set its Retell key (back office, `retellSecret`), a request must carry
 * Retell's valid `X-Retell-Signature` (retell-sdk's `verify`: `v=<ms>,d=<hex HMAC-SHA256 of
 * body + ms>`, five minutes of tolerance), else `401 unauthenticated`, reason `retell_signature_invalid`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.js';
import { ApiError } from '../../../core/errors.js';
import { retellSecretOf } from '../../../modules/clinics/index.js';
import { rawBodyOf } from '../../plugins/input.js';
import type { App } from '../../types.js';
import { answerOf, headerOf, RUNNER_CONFIG, TAG, toolCaller } from './agent-runner.js';
import { ToolAnswerSchema } from './agent-tools-run.js';

/** How far a signature's time may be from the server's (retell-sdk's own tolerance). */
const RETELL_SIGNATURE_TOLERANCE_MS = 5 * 60_000;

/** Retell's signature of a body at a time: hex HMAC-SHA256, with the clinic's key, of the body then the time in ms. */
export function retellSignature(secret: string, body: string, timestampMs: number): string {
  return `v=${timestampMs},d=${createHmac('sha256', secret)
    .update(body + timestampMs)
    .digest('hex')}`;
}

function signatureValid(secret: string, body: string, header: string | undefined, now = Date.now()): boolean {
  const match = /^v=(\d{1,15}),d=([0-9a-f]{64})$/.exec(header ?? '');
  if (!match) return false;
  const timestamp = Number(match[1]);
  if (Math.abs(now - timestamp) > RETELL_SIGNATURE_TOLERANCE_MS) return false;
  const expected = createHmac('sha256', secret)
    .update(body + timestamp)
    .digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
}

async function checkSignature(ctx: AppContext, request: FastifyRequest): Promise<void> {
  const secret = await retellSecretOf(ctx.db, request.actor.clinicId);
  if (secret === null) return;
  if (!signatureValid(secret, rawBodyOf(request) ?? '', headerOf(request, 'x-retell-signature'))) {
    throw new ApiError(
      'unauthenticated',
      { reason: 'retell_signature_invalid', header: 'X-Retell-Signature' },
      'La firma X-Retell-Signature manca, non è valida o è scaduta: la richiesta non viene da Retell con la chiave impostata per lo studio.',
    );
  }
}

const CALL_EXAMPLE = {
  call_id: 'Jabr9TXYYJHfvl6Syypi88rdAHYHmcq6',
  call_type: 'phone_call',
  agent_id: 'oBeDLoLOeuAbiuaMFXRtDOLriTJ5tSxD',
  call_status: 'ongoing',
  from_number: '+393331234567',
  to_number: '+390212345678',
  transcript: 'Agent: Studio dentistico, buongiorno.\nUser: Vorrei prenotare una pulizia.',
};

const RetellBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 100, description: 'The custom function’s name: the tool' })),
    call: Type.Optional(
      Type.Object({ call_id: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: true, description: 'Retell’s call object' }),
    ),
    args: Type.Optional(Type.Unknown({ description: 'The arguments, a JSON object' })),
  },
  { additionalProperties: true, examples: [{ name: 'list_services', call: CALL_EXAMPLE, args: {} }] },
);

const SIGNATURE_HEADER = Type.Object({
  'x-retell-signature': Type.Optional(
    Type.String({ description: 'Retell’s signature of the body (`v=<ms>,d=<hex>`): required once the clinic has set its Retell key' }),
  ),
  'x-call-id': Type.Optional(Type.String({ description: 'The call’s id when the body has none (args at root)' })),
});

const ANSWER = [
  'Always `200` once the key (and the signature, when the clinic has set its Retell key) is accepted: `{"result": …}` (the operation’s answer) or `{"error": {code, message, nextStep, details}}`, which Retell passes to its model as the function’s result. An unknown tool, wrong arguments (every wrong one in `details.issues`), a refusal of the clinic’s rules and `ai_disabled` are such errors. The tool call costs the rate budget of the operation it performs.',
  'With the clinic’s Retell key set (back office: `retellSecret`), a request without Retell’s valid `X-Retell-Signature` (HMAC-SHA256 of the body and the time with that key, as retell-sdk’s `verify`, within five minutes) is `401 unauthenticated`, reason `retell_signature_invalid`, and runs nothing.',
].join('\n\n');

export function registerRetellRunner(app: App, ctx: AppContext): void {
  const config = { ...RUNNER_CONFIG, keepRawBody: true as const };
  app.post(
    '/v1/agent-tools/retell',
    {
      schema: {
        operationId: 'runRetellFunction',
        tags: [TAG],
        summary: 'Run a Retell custom function',
        description: [
          'Retell’s custom-function request (`POST`, the whole body: `name`, `call`, `args`): runs the tool `name` with `args`, with this key, as `/mcp` does. `call.call_id` is the tool call’s id (else `X-Call-Id`): a retried writing tool answers its first result and writes nothing more. The pack (`GET /v1/agent-tools?platform=retell`) points every tool here.',
          ANSWER,
        ].join('\n\n'),
        headers: SIGNATURE_HEADER,
        body: RetellBody,
        response: { 200: ToolAnswerSchema },
      },
      config,
    },
    async (request, reply) => {
      await checkSignature(ctx, request);
      const call = toolCaller(app as unknown as FastifyInstance, request);
      const callId = request.body.call?.call_id || headerOf(request, 'x-call-id');
      return reply.status(200).send(answerOf(await call(request.body.name, request.body.args, callId)));
    },
  );

  app.post(
    '/v1/agent-tools/retell/:tool',
    {
      schema: {
        operationId: 'runRetellFunctionArgsAtRoot',
        tags: [TAG],
        summary: 'Run a Retell custom function (arguments at root)',
        description: [
          'Retell’s custom function with “args at root”: the body is the arguments alone, so the tool is named by the path. Its call’s id is `X-Call-Id` (a header of the custom function), since the body has none.',
          ANSWER,
        ].join('\n\n'),
        params: Type.Object({ tool: Type.String({ minLength: 1, maxLength: 100, description: 'The tool’s name' }) }, { additionalProperties: false }),
        headers: SIGNATURE_HEADER,
        body: Type.Unknown({ description: 'The arguments, a JSON object', examples: [{ query: 'pulizia' }] }),
        response: { 200: ToolAnswerSchema },
      },
      config,
    },
    async (request, reply) => {
      await checkSignature(ctx, request);
      const call = toolCaller(app as unknown as FastifyInstance, request);
      return reply.status(200).send(answerOf(await call(request.params.tool, request.body ?? {}, headerOf(request, 'x-call-id'))));
    },
  );
}

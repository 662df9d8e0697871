/** /v1/calls (spec 2.6, 4.5). */
import { Type } from 'typebox';
import type { AppContext } from '../../../context.js';
import { hasScope } from '../../../modules/auth/authenticate.js';
import { createCall, getCall, OUTCOMES } from '../../../modules/calls/service.js';
import { IdempotencyKeyHeader, IdParams, InputTimestamp, Nullable, OutputTimestamp, StringEnum, Uuid } from '../../../core/schemas.js';
import type { App } from '../../types.js';

const TAG = 'Phone calls';
const NUMBER_PATTERN = '^([Aa][Nn][Oo][Nn][Yy][Mm][Oo][Uu][Ss]|[+0-9 ()./-]*)$';

const CallInputSchema = Type.Object(
  {
    externalCallId: Type.String({ minLength: 1, maxLength: 255, description: 'The call id at the voice provider: the idempotency key of the registration' }),
    direction: StringEnum(['inbound', 'outbound'] as const),
    from: Type.String({ minLength: 3, maxLength: 32, pattern: NUMBER_PATTERN, description: 'Phone in any format, or `anonymous` when hidden' }),
    to: Type.String({ minLength: 3, maxLength: 32, pattern: NUMBER_PATTERN, description: 'Phone in any format, or `anonymous` when hidden' }),
    startedAt: Type.Optional(Nullable(InputTimestamp())),
    durationSeconds: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 86400 }))),
    outcome: Type.Optional(Nullable(StringEnum(OUTCOMES))),
    summary: Type.Optional(Nullable(Type.String({ maxLength: 4000 }))),
    recordingUrl: Type.Optional(Nullable(Type.String({ maxLength: 2048, format: 'uri' }))),
    transcript: Type.Optional(Nullable(Type.String({ maxLength: 200000, description: 'Clinical data: requires `clinical:write`' }))),
    patientId: Type.Optional(Nullable(Uuid())),
    leadId: Type.Optional(Nullable(Uuid())),
    facilityId: Type.Optional(Nullable(Uuid({ description: 'Required when the key is limited to facilities; must be one the key sees' }))),
    caller: Type.Optional(
      Nullable(
        Type.Object(
          { firstName: Type.Optional(Nullable(Type.String({ maxLength: 100 }))), lastName: Type.Optional(Nullable(Type.String({ maxLength: 100 }))) },
          { additionalProperties: false, description: 'The name said on the phone; used when the number is unknown and a lead is created' },
        ),
      ),
    ),
  },
  { additionalProperties: false, title: 'CallInput' },
);

const callFields = {
  id: Uuid(),
  externalCallId: Type.String(),
  direction: StringEnum(['inbound', 'outbound'] as const),
  from: Type.String({ description: 'E.164, or `anonymous`' }),
  to: Type.String({ description: 'E.164, or `anonymous`' }),
  startedAt: Nullable(OutputTimestamp()),
  durationSeconds: Nullable(Type.Integer()),
  outcome: Nullable(StringEnum(OUTCOMES)),
  summary: Nullable(Type.String()),
  recordingUrl: Nullable(Type.String({ description: 'Link to the recording at the provider' })),
  patientId: Nullable(Uuid()),
  leadId: Nullable(Uuid()),
  facilityId: Nullable(Uuid()),
  createdAt: OutputTimestamp(),
};
const CallSchema = Type.Object(callFields, { additionalProperties: false, title: 'Call' });
const CallDetailSchema = Type.Object(
  { ...callFields, transcript: Type.Optional(Nullable(Type.String({ description: 'Only with `clinical:read`; the read is written to the access log' }))) },
  { additionalProperties: false, title: 'CallDetail' },
);

export function registerCallRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/v1/calls',
    {
      schema: {
        operationId: 'createCall',
        tags: [TAG],
        summary: 'Register a finished phone call',
        description: [
          'Idempotent on `externalCallId` within the clinic: `201` the first time, then `200` with the row already registered, unchanged (also for concurrent retries; the body of a retry is not compared; a registered call of a facility the key does not see is `404`). Events `call.logged`, and `lead.created` when a lead was made.',
          'Required: `externalCallId`, `direction`, `from`, `to` (our choice). `from` and `to` are phones in any format, stored in E.164, or `anonymous`.',
          'When neither `patientId` nor `leadId` is given, the counterpart number (`from` for inbound, `to` for outbound) is matched to a patient with that phone (an active one first), else to a lead with it; an unknown number becomes a lead with `source: phone` and the `caller` name (first name `Sconosciuto` when none is given). `anonymous` matches and creates nothing. When the call is linked to a lead, a `call` activity is added to it (its body is the `summary`, or the direction and outcome).',
          '`transcript` needs `clinical:write` (`403 insufficient_scope`, `requiredScopes: ["clinical:write"]`); it is never in this response. `patientId`, `leadId` and `facilityId` must be rows the key sees (else `400` naming the field); `facilityId` is required for a key limited to facilities.',
        ].join('\n\n'),
        headers: Type.Object({ 'idempotency-key': Type.Optional(IdempotencyKeyHeader) }),
        body: CallInputSchema,
        response: { 201: CallSchema, 200: CallSchema },
      },
      config: { scopes: ['calls:write'], idempotent: true },
    },
    async (request, reply) => {
      const { view, created } = await createCall(
        ctx.db,
        { scope: request.auth, clinicalWrite: hasScope(request.auth, 'clinical:write'), region: ctx.config.defaultPhoneRegion },
        request.body,
      );
      return reply.status(created ? 201 : 200).send(view);
    },
  );

  app.get(
    '/v1/calls/:id',
    {
      schema: {
        operationId: 'getCall',
        tags: [TAG],
        summary: 'Read a phone call',
        description:
          'The call. `transcript` is present only for a key with `clinical:read`, and that read is written to the access log. A call of another clinic or of a facility the key does not see is `404`.',
        params: IdParams,
        response: { 200: CallDetailSchema },
      },
      config: { scopes: ['calls:read'] },
    },
    async (request) => getCall(ctx.db, ctx.accessLog, request.auth, request.params.id, request.id),
  );
}

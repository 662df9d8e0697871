/**
 * Calls on the wire (spec 2.6, 4.5): the schemas the route validates and serializes with, and
 * the service's types derived from them by `Static<>`.
 */
import { Type, type Static } from 'typebox';
import { InputTimestamp, Nullable, OutputTimestamp, StringEnum, Uuid } from '../../core/schemas.js';
import { CALLER_NUMBER_PATTERN } from '../../lib/phone.js';

const OUTCOMES = [
  'booked',
  'rescheduled',
  'cancelled',
  'information',
  'callback',
  'interested',
  'not_interested',
  'transferred',
  'no_answer',
  'voicemail',
  'failed',
  'other',
] as const;

export const CallInputSchema = Type.Object(
  {
    externalCallId: Type.String({ minLength: 1, maxLength: 255, description: 'The call id at the voice provider: the idempotency key of the registration' }),
    direction: StringEnum(['inbound', 'outbound'] as const),
    from: Type.String({ minLength: 3, maxLength: 32, pattern: CALLER_NUMBER_PATTERN, description: 'Phone in any format, or `anonymous` when hidden' }),
    to: Type.String({ minLength: 3, maxLength: 32, pattern: CALLER_NUMBER_PATTERN, description: 'Phone in any format, or `anonymous` when hidden' }),
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
export const CallSchema = Type.Object(callFields, { additionalProperties: false, title: 'Call' });
export const CallDetailSchema = Type.Object(
  { ...callFields, transcript: Type.Optional(Nullable(Type.String({ description: 'Only with `clinical:read`; the read is written to the access log' }))) },
  { additionalProperties: false, title: 'CallDetail' },
);

export type CallInput = Static<typeof CallInputSchema>;
export type CallView = Static<typeof CallDetailSchema>;

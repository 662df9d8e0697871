/** API keys on the wire (back office): the key as listed, as created (with its token once), and the body that issues one. */
import { Type } from 'typebox';
import { AGENT_KINDS } from '../../core/actor.js';
import { InputTimestamp, Nullable, OutputTimestamp, StringEnum, Uuid } from '../../core/schemas.js';
import { SCOPES } from './scopes.js';

export const ApiKeySchema = Type.Object(
  {
    id: Uuid(),
    clinicId: Uuid(),
    name: Type.String(),
    kind: StringEnum(['live', 'test']),
    prefix: Type.String({ description: 'First characters of the token' }),
    scopes: Type.Array(Type.String()),
    facilityIds: Nullable(Type.Array(Uuid())),
    agent: StringEnum(AGENT_KINDS, { description: 'What the key is issued for: `none` (a plain integration), `chat_bot` or `voice_agent`' }),
    expiresAt: Nullable(OutputTimestamp()),
    revokedAt: Nullable(OutputTimestamp()),
    replacedBy: Nullable(Uuid()),
    lastUsedAt: Nullable(OutputTimestamp()),
    createdAt: OutputTimestamp(),
  },
  { additionalProperties: false },
);
export const CreatedApiKeySchema = Type.Object(
  { ...ApiKeySchema.properties, token: Type.String({ description: 'The bearer token: shown only in this response' }) },
  { additionalProperties: false },
);

export const NewApiKeySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scopes: Type.Array(StringEnum(SCOPES), { minItems: 1, maxItems: SCOPES.length, uniqueItems: true }),
    facilityIds: Type.Optional(Nullable(Type.Array(Uuid(), { minItems: 1, maxItems: 100 }))),
    expiresAt: Type.Optional(Nullable(InputTimestamp())),
    agent: Type.Optional(
      StringEnum(AGENT_KINDS, {
        default: 'none',
        description:
          '`chat_bot` or `voice_agent`: appointments it books, moves or cancels get origin `bot` or `voice` whatever the body says, and every request it makes is refused `403 forbidden` reason `ai_disabled` while the clinic’s AI processing is off. `none` (default): a plain integration.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** GET /v1/meta and /v1/meta/event-types: what a key is and may do, in one answer. */
import { Type, type Static } from 'typebox';
import { AGENT_KINDS } from '../../core/actor.js';
import { Nullable, OutputTimestamp, StringEnum, Uuid } from '../../core/schemas.js';

export const API_VERSION = '1.0.0';

export const RateWindowSchema = Type.Object(
  {
    scope: StringEnum(['key', 'clinic'] as const, { description: 'Whose budget: this key’s or the whole clinic’s (every key)' }),
    window: StringEnum(['10s', 'day'] as const, { description: '`10s`: ten seconds aligned to the epoch; `day`: the UTC day' }),
    limit: Type.Integer(),
    remaining: Type.Integer({ description: 'Left after this request' }),
    reset: Type.Integer({ description: 'When the window ends, epoch seconds UTC' }),
  },
  { additionalProperties: false },
);

export const MetaSchema = Type.Object(
  {
    apiVersion: Type.String({ description: 'Version of the API description' }),
    serverTime: OutputTimestamp({ description: 'The server’s clock, to measure drift against' }),
    key: Type.Object(
      {
        id: Uuid(),
        name: Type.String(),
        kind: StringEnum(['live', 'test'] as const),
        scopes: Type.Array(Type.String()),
        facilityIds: Nullable(Type.Array(Uuid(), { description: 'null: every facility' })),
        agent: StringEnum(AGENT_KINDS),
        createdAt: OutputTimestamp(),
        expiresAt: Nullable(OutputTimestamp()),
      },
      { additionalProperties: false },
    ),
    clinic: Type.Object(
      {
        id: Uuid(),
        name: Type.String(),
        timezone: Type.String({ description: 'IANA time zone of the clinic' }),
        aiEnabled: Type.Boolean({ description: 'false: agent keys and /v1/voice/* are refused (`403 forbidden` reason `ai_disabled`)' }),
        planActive: Type.Boolean(),
      },
      { additionalProperties: false },
    ),
    rateLimits: Type.Array(RateWindowSchema, { description: 'Every rate-limit window this request was counted in; the headers show only the tightest' }),
  },
  {
    additionalProperties: false,
    title: 'Meta',
    examples: [
      {
        apiVersion: API_VERSION,
        serverTime: '2026-03-01T10:00:00.000Z',
        key: {
          id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
          name: 'Agente vocale',
          kind: 'live',
          scopes: ['appointments:read', 'appointments:write', 'patients:read', 'calls:write', 'clinic:read'],
          facilityIds: null,
          agent: 'voice_agent',
          createdAt: '2026-01-10T09:00:00.000Z',
          expiresAt: null,
        },
        clinic: { id: '1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e', name: 'Studio Dentistico Sorriso', timezone: 'Europe/Rome', aiEnabled: true, planActive: true },
        rateLimits: [
          { scope: 'key', window: '10s', limit: 60, remaining: 59, reset: 1772359210 },
          { scope: 'key', window: 'day', limit: 12000, remaining: 11999, reset: 1772409600 },
          { scope: 'clinic', window: '10s', limit: 100, remaining: 99, reset: 1772359210 },
          { scope: 'clinic', window: 'day', limit: 20000, remaining: 19999, reset: 1772409600 },
        ],
      },
    ],
  },
);
export type MetaView = Static<typeof MetaSchema>;
export type RateWindowView = Static<typeof RateWindowSchema>;

export const EventTypeSchema = Type.Object(
  {
    type: Type.String(),
    scope: Type.String({ description: 'The scope a key needs to receive it (besides `webhooks:read`)' }),
    subscribable: Type.Boolean({ description: 'Whether this key may subscribe a webhook destination to it: it holds the scope and `webhooks:read`' }),
  },
  { additionalProperties: false, title: 'EventType', examples: [{ type: 'appointment.created', scope: 'appointments:read', subscribable: true }] },
);
export type EventTypeView = Static<typeof EventTypeSchema>;
export const EventTypeListSchema = Type.Object({ data: Type.Array(EventTypeSchema) }, { additionalProperties: false });

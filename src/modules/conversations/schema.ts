/**
 * Conversations on the wire (spec 2.7, 2.8, 3.1): the schemas the routes validate and serialize
 * with, and the service's view types derived from them by `Static<>`.
 */
import { Type, type Static } from 'typebox';
import { Nullable, OutputTimestamp, StringEnum, Uuid } from '../../core/schemas.js';

export const ConversationSchema = Type.Object(
  {
    id: Uuid(),
    patientId: Nullable(Uuid()),
    leadId: Nullable(Uuid()),
    phone: Nullable(Type.String({ description: 'E.164' })),
    botState: StringEnum(['attivo', 'in_pausa', 'allo_studio'] as const, {
      description: 'attivo = the bot answers; in_pausa = silent until botPausedUntil; allo_studio = switched off by a person',
    }),
    botPausedUntil: Nullable(OutputTimestamp()),
    optedOut: Type.Boolean({ description: 'true = the patient wrote STOP: no automatic messages are sent' }),
    lastInboundAt: Nullable(OutputTimestamp()),
    lastOutboundAt: Nullable(OutputTimestamp()),
    lastActivityAt: Nullable(OutputTimestamp()),
    createdAt: OutputTimestamp(),
    updatedAt: OutputTimestamp(),
  },
  { additionalProperties: false, title: 'Conversation' },
);

export const MessageSchema = Type.Object(
  {
    id: Uuid(),
    direction: Type.String({ description: '`in` (from the person) or `out` (to the person)' }),
    author: Type.String({ description: '`paziente`, `bot` or `operatore`' }),
    type: Type.String({ description: '`testo`, `vocale`, `immagine` or `documento`' }),
    body: Nullable(Type.String({ description: 'Text; reading it is logged as access to clinical data' })),
    occurredAt: OutputTimestamp(),
    createdAt: OutputTimestamp({ description: 'Arrival at the service: the order of the list' }),
    mediaMimeType: Nullable(Type.String()),
    mediaDurationSeconds: Nullable(Type.Integer()),
    documentId: Nullable(Uuid({ description: 'The document holding the media file (`POST /v1/documents` with `chatMessageId`)' })),
    transcriptionStatus: Type.String({ description: '`assente`, `in_corso`, `completata` or `fallita`' }),
    transcription: Type.Optional(
      Nullable(Type.String({ description: 'Voice transcript: only with `clinical:read` and `patients:read`, and only in a patient’s conversation' })),
    ),
  },
  { additionalProperties: false, title: 'ChatMessage' },
);

export type ConversationView = Static<typeof ConversationSchema>;
export type MessageView = Static<typeof MessageSchema>;

/**
 * Conversations on the wire (spec 2.7, 2.8, 3.1): the schemas the routes validate and serialize
 * with, and the service's view types derived from them by `Static<>`.
 */
import { Type, type Static } from 'typebox';
import { InputTimestamp, Nullable, OutputTimestamp, StringEnum, Uuid, PageQueryFields } from '../../core/schemas.js';

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

/** /v1: a conversation's messages, a page at a time. */
export const MessageListQuerySchema = Type.Object(
  {
    ...PageQueryFields,
    updatedSince: Type.Optional(InputTimestamp({ description: 'Only messages that arrived at or after it' })),
  },
  { additionalProperties: false },
);
/** The list's parameters, `limit` defaulted. */
export type MessageListQuery = Static<typeof MessageListQuerySchema> & { limit: number };

/** /v1: switch the bot on, or pause it until an instant. */
export const BotChangeSchema = Type.Object(
  {
    state: StringEnum(['attivo', 'in_pausa'] as const),
    pausedUntil: Type.Optional(InputTimestamp({ description: 'Only with `in_pausa`: a future instant, at most 7 days ahead' })),
  },
  { additionalProperties: false },
);
export type BotChange = Static<typeof BotChangeSchema>;

// ---- Back office ----

const TRANSCRIPTION_STATUSES = ['assente', 'in_corso', 'completata', 'fallita'] as const;

/** A conversation opened for a patient, a lead or a bare phone number. */
export const NewConversationSchema = Type.Object(
  {
    patientId: Type.Optional(Uuid()),
    leadId: Type.Optional(Uuid()),
    phone: Type.Optional(Type.String({ minLength: 3, maxLength: 40 })),
    facilityId: Type.Optional(Nullable(Uuid())),
  },
  { additionalProperties: false },
);
export type NewConversation = Static<typeof NewConversationSchema>;

/** An inbound or outbound message recorded in a conversation. */
export const NewMessageSchema = Type.Object(
  {
    direction: StringEnum(['in', 'out'] as const),
    author: Type.Optional(StringEnum(['paziente', 'bot', 'operatore'] as const)),
    type: Type.Optional(StringEnum(['testo', 'vocale', 'immagine', 'documento'] as const)),
    body: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 10000 }))),
    occurredAt: Type.Optional(InputTimestamp()),
    mediaMimeType: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
    mediaDurationSeconds: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 86400 }))),
    transcriptionStatus: Type.Optional(StringEnum(TRANSCRIPTION_STATUSES)),
    transcription: Type.Optional(Nullable(Type.String({ maxLength: 200000 }))),
  },
  { additionalProperties: false },
);
export type NewMessage = Static<typeof NewMessageSchema>;
export const RecordedMessageSchema = Type.Object({ conversation: ConversationSchema, message: MessageSchema }, { additionalProperties: false });

/** A voice message's transcription, when the transcriber finishes (or fails). */
export const TranscriptionSchema = Type.Object(
  { transcriptionStatus: StringEnum(TRANSCRIPTION_STATUSES), transcription: Type.Optional(Nullable(Type.String({ maxLength: 200000 }))) },
  { additionalProperties: false },
);
export type Transcription = Static<typeof TranscriptionSchema>;

/** Back office: chat conversations (open, messages, transcriptions, hand-off, STOP). */
import { clinicActor } from './actor.js';
import { Type } from 'typebox';
import { CONVERSATION_REASONS } from '../../../modules/conversations/reasons.js';
import type { AppContext } from '../../../context.js';
import { conversationView, handOff, messageView, openConversation, optOut, recordMessage, setTranscription } from '../../../modules/conversations/service.js';
import { setEtag } from '../../etag.js';
import { ClinicParams, InputTimestamp, Nullable, StringEnum, Uuid } from '../../../core/schemas.js';
import type { App } from '../../types.js';
import { ConversationSchema, MessageSchema } from '../../../modules/conversations/schema.js';

const TAG = 'Agenda (back office)';
const ItemParams = Type.Object({ clinicId: Uuid(), id: Uuid() }, { additionalProperties: false });
const TRANSCRIPTION_STATUSES = ['assente', 'in_corso', 'completata', 'fallita'] as const;

export function registerChatAdminRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;

  app.post(
    '/admin/v1/clinics/:clinicId/conversations',
    {
      schema: {
        operationId: 'adminOpenConversation',
        tags: [TAG],
        summary: 'Open a conversation',
        description:
          'For a patient (`patientId`), a lead (`leadId`) or a bare phone number (`phone`, any format, stored E.164). The phone defaults to the patient’s or lead’s; the facility to theirs.',
        params: ClinicParams,
        body: Type.Object(
          {
            patientId: Type.Optional(Uuid()),
            leadId: Type.Optional(Uuid()),
            phone: Type.Optional(Type.String({ minLength: 3, maxLength: 40 })),
            facilityId: Type.Optional(Nullable(Uuid())),
          },
          { additionalProperties: false },
        ),
        response: { 201: ConversationSchema },
      },
    },
    async (request, reply) => {
      const row = await openConversation(db, await clinicActor(ctx, request, request.params.clinicId), request.body);
      setEtag(reply, row.version);
      return reply.status(201).send(conversationView(row));
    },
  );

  app.post(
    '/admin/v1/clinics/:clinicId/conversations/:id/messages',
    {
      config: { reasons: CONVERSATION_REASONS.recordMessage },
      schema: {
        operationId: 'adminRecordMessage',
        tags: [TAG],
        summary: 'Record an inbound or outbound message',
        description:
          'Inbound (`in`) records `conversation.message_received` (ids only) and updates `lastInboundAt`; a text message `STOP` sets `optedOut`. Outbound (`out`) updates `lastOutboundAt`; an automatic one (author `bot`) to an opted-out conversation is `409 conflict`, reason `opted_out`. Voice messages: `type: vocale`, `mediaMimeType`, `mediaDurationSeconds`, optional `transcription`.',
        params: ItemParams,
        body: Type.Object(
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
        ),
        response: { 201: Type.Object({ conversation: ConversationSchema, message: MessageSchema }, { additionalProperties: false }) },
      },
    },
    async (request, reply) => {
      const { conversation, message } = await recordMessage(db, await clinicActor(ctx, request, request.params.clinicId), request.params.id, request.body);
      return reply.status(201).send({ conversation: conversationView(conversation), message: messageView(message, true) });
    },
  );

  app.patch(
    '/admin/v1/clinics/:clinicId/conversations/:id/messages/:messageId',
    {
      schema: {
        operationId: 'adminSetTranscription',
        tags: [TAG],
        summary: 'Set a voice message’s transcription',
        description: 'When the transcriber finishes (or fails): `transcriptionStatus` and, optionally, `transcription`.',
        params: Type.Object({ clinicId: Uuid(), id: Uuid(), messageId: Uuid() }, { additionalProperties: false }),
        body: Type.Object(
          { transcriptionStatus: StringEnum(TRANSCRIPTION_STATUSES), transcription: Type.Optional(Nullable(Type.String({ maxLength: 200000 }))) },
          { additionalProperties: false },
        ),
        response: { 200: MessageSchema },
      },
    },
    async (request) =>
      messageView(
        await setTranscription(db, await clinicActor(ctx, request, request.params.clinicId), request.params.id, request.params.messageId, request.body),
        true,
      ),
  );

  app.post(
    '/admin/v1/clinics/:clinicId/conversations/:id/handoff',
    {
      schema: {
        operationId: 'adminHandOffConversation',
        tags: [TAG],
        summary: 'Hand the conversation to the clinic',
        description:
          'A person takes over: `botState` becomes `allo_studio` and `conversation.handoff_requested` is recorded. Already `allo_studio`: unchanged, no event.',
        params: ItemParams,
        response: { 200: ConversationSchema },
      },
    },
    async (request) => conversationView(await handOff(db, await clinicActor(ctx, request, request.params.clinicId), request.params.id)),
  );

  app.post(
    '/admin/v1/clinics/:clinicId/conversations/:id/opt-out',
    {
      schema: {
        operationId: 'adminOptOutConversation',
        tags: [TAG],
        summary: 'Record a STOP opt-out',
        description: 'Sets `optedOut: true`: no automatic messages are sent from now on.',
        params: ItemParams,
        response: { 200: ConversationSchema },
      },
    },
    async (request) => conversationView(await optOut(db, await clinicActor(ctx, request, request.params.clinicId), request.params.id)),
  );
}

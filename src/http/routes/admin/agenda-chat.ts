/** Back office: chat conversations (open, messages, transcriptions, hand-off, STOP). */
import { Type } from 'typebox';
import {
  CONVERSATION_REASONS,
  conversationView,
  handOff,
  messageView,
  openConversation,
  optOut,
  recordMessage,
  setTranscription,
  ConversationSchema,
  MessageSchema,
  NewConversationSchema,
  NewMessageSchema,
  RecordedMessageSchema,
  TranscriptionSchema,
  newConversationIssues,
  newMessageIssues,
} from '../../../modules/conversations/index.js';
import type { AppContext } from '../../../context.js';
import { setEtag } from '../../etag.js';
import { ClinicParams, Uuid, ClinicItemParams } from '../../../core/schemas.js';
import type { App } from '../../types.js';

const TAG = 'Agenda (back office)';

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
        body: NewConversationSchema,
        response: { 201: ConversationSchema },
      },
      config: { clinicActor: true, bodyIssues: newConversationIssues },
    },
    async (request, reply) => {
      const row = await openConversation(db, request.actor, request.body);
      setEtag(reply, row.version);
      return reply.status(201).send(conversationView(row));
    },
  );

  app.post(
    '/admin/v1/clinics/:clinicId/conversations/:id/messages',
    {
      config: { clinicActor: true, reasons: CONVERSATION_REASONS.recordMessage, bodyIssues: newMessageIssues },
      schema: {
        operationId: 'adminRecordMessage',
        tags: [TAG],
        summary: 'Record an inbound or outbound message',
        description:
          'Inbound (`in`) records `conversation.message_received` (ids only) and updates `lastInboundAt`; a text message `STOP` sets `optedOut`. Outbound (`out`) updates `lastOutboundAt`; an automatic one (author `bot`) to an opted-out conversation is `409 conflict`, reason `opted_out`. Voice messages: `type: vocale`, `mediaMimeType`, `mediaDurationSeconds`, optional `transcription`.',
        params: ClinicItemParams,
        body: NewMessageSchema,
        response: { 201: RecordedMessageSchema },
      },
    },
    async (request, reply) => {
      const { conversation, message } = await recordMessage(db, request.actor, request.params.id, request.body);
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
        body: TranscriptionSchema,
        response: { 200: MessageSchema },
      },
      config: { clinicActor: true, bodyIssues: false },
    },
    async (request) => messageView(await setTranscription(db, request.actor, request.params.id, request.params.messageId, request.body), true),
  );

  app.post(
    '/admin/v1/clinics/:clinicId/conversations/:id/handoff',
    {
      config: { clinicActor: true },
      schema: {
        operationId: 'adminHandOffConversation',
        tags: [TAG],
        summary: 'Hand the conversation to the clinic',
        description:
          'A person takes over: `botState` becomes `allo_studio` and `conversation.handoff_requested` is recorded. Already `allo_studio`: unchanged, no event.',
        params: ClinicItemParams,
        response: { 200: ConversationSchema },
      },
    },
    async (request) => conversationView(await handOff(db, request.actor, request.params.id)),
  );

  app.post(
    '/admin/v1/clinics/:clinicId/conversations/:id/opt-out',
    {
      config: { clinicActor: true },
      schema: {
        operationId: 'adminOptOutConversation',
        tags: [TAG],
        summary: 'Record a STOP opt-out',
        description: 'Sets `optedOut: true`: no automatic messages are sent from now on.',
        params: ClinicItemParams,
        response: { 200: ConversationSchema },
      },
    },
    async (request) => conversationView(await optOut(db, request.actor, request.params.id)),
  );
}

/** The `data` of the conversation events (spec 6.2, 6.3): ids, not the text. */
import type { TSchema } from 'typebox';
import { EventDataObject, EXAMPLE_IDS as ID } from '../../core/event-data.js';
import { Nullable, OutputTimestamp, Uuid } from '../../core/schemas.js';
import type { AnyEventType } from '../../events/catalogue.js';
import { ConversationSchema } from './schema.js';

const MessageReceived = EventDataObject(
  {
    id: Uuid({ description: 'The message (read it with `GET /conversations/{conversationId}/messages`)' }),
    conversationId: Uuid(),
    patientId: Nullable(Uuid()),
    leadId: Nullable(Uuid()),
  },
  'MessageReceivedEventData',
  'Ids only: the text is read through the API, where the read is logged',
  { id: ID.message, conversationId: ID.conversation, patientId: ID.patient, leadId: null },
);
const HandoffRequested = EventDataObject(
  {
    id: Uuid({ description: 'The conversation' }),
    patientId: Nullable(Uuid()),
    leadId: Nullable(Uuid()),
    botState: ConversationSchema.properties.botState,
    updatedAt: OutputTimestamp(),
  },
  'HandoffRequestedEventData',
  'The conversation a person takes over from the bot',
  { id: ID.conversation, patientId: ID.patient, leadId: null, botState: 'allo_studio', updatedAt: '2026-03-02T09:31:20.000Z' },
);

/** The schema of `data` for each conversation event type. */
export const CONVERSATION_EVENTS = {
  'conversation.message_received': MessageReceived,
  'conversation.handoff_requested': HandoffRequested,
} satisfies { [T in AnyEventType]?: TSchema };

/** The front door of src/modules/conversations: what code outside the module uses of it (test/layers.test.ts). */
export { botChangeIssues, newConversationIssues, newMessageIssues } from './checks.js';
export { conversationJobs } from './jobs.js';
export { CONVERSATION_REASONS } from './reasons.js';
export {
  BotChangeSchema,
  ConversationSchema,
  MessageListQuerySchema,
  MessageSchema,
  NewConversationSchema,
  NewMessageSchema,
  RecordedMessageSchema,
  TranscriptionSchema,
} from './schema.js';
export {
  conversationView,
  findConversation,
  handOff,
  listMessages,
  messageView,
  openConversation,
  optOut,
  recordMessage,
  setTranscription,
  updateBot,
} from './service.js';

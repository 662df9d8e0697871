/** /v1/conversations (spec 2.7, 2.8, 3.1, 4.6, 4.7). */
import {
  CONVERSATION_REASONS,
  conversationView,
  findConversation,
  listMessages,
  updateBot,
  ConversationSchema,
  MessageSchema,
  BotChangeSchema,
  MessageListQuerySchema,
  botChangeIssues,
} from '../../../modules/conversations/index.js';
import type { AppContext } from '../../../context.js';
import { hasScope } from '../../../modules/auth/index.js';
import { expectedVersion, setEtag } from '../../etag.js';
import { IdParams, IfMatchHeaders, Page } from '../../../core/schemas.js';
import type { App } from '../../types.js';

const TAG = 'Chat messages';

export function registerConversationRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/conversations/:id',
    {
      schema: {
        operationId: 'getConversation',
        tags: [TAG],
        summary: 'Read a conversation',
        description:
          'The conversation with its `ETag` (use it as `If-Match` on updateConversationBot). A pause whose time has passed reads as `attivo` with `botPausedUntil: null`. Holds no message text.',
        params: IdParams,
        response: { 200: ConversationSchema },
      },
      config: { etag: true, scopes: ['messages:read'] },
    },
    async (request, reply) => {
      const row = await findConversation(ctx.db, request.actor, request.params.id);
      setEtag(reply, row.version);
      return conversationView(row);
    },
  );

  app.get(
    '/v1/conversations/:id/messages',
    {
      schema: {
        operationId: 'listConversationMessages',
        tags: [TAG],
        summary: 'Messages of a conversation',
        description: [
          'Order: by arrival at the service (`createdAt`), oldest first, then by id. `updatedSince` filters on the arrival instant (messages are never modified, except a voice message’s transcription).',
          '`transcription` is present only when the key has `clinical:read` and `patients:read` and the conversation belongs to a patient; otherwise the field is absent.',
          'Access log: every page that returns message text is logged (one entry naming the messages with a body or a transcription returned).',
        ].join('\n\n'),
        params: IdParams,
        querystring: MessageListQuerySchema,
        response: { 200: Page(MessageSchema) },
      },
      config: { scopes: ['messages:read'] },
    },
    async (request) => {
      const auth = request.actor;
      const page = await listMessages(
        ctx.db,
        auth,
        request.params.id,
        { ...request.query, limit: request.query.limit ?? 50 },
        (c) => c.patient_id !== null && hasScope(auth, 'clinical:read') && hasScope(auth, 'patients:read'),
      );
      const withText = page.data.filter((m) => m.body !== null || (page.transcription && m.transcription));
      const fields = page.transcription && withText.some((m) => m.transcription) ? ['body', 'transcription'] : ['body'];
      await ctx.accessLog.record(auth, { resourceType: 'chat_message', resourceIds: withText.map((m) => m.id), fields, requestId: request.id });
      return { data: page.data, nextCursor: page.nextCursor };
    },
  );

  app.patch(
    '/v1/conversations/:id/bot',
    {
      schema: {
        operationId: 'updateConversationBot',
        tags: [TAG],
        summary: 'Switch the bot on or pause it',
        description: [
          'Body `{ "state": "attivo" }` switches the bot on (from any state); `{ "state": "in_pausa", "pausedUntil": … }` pauses it until a future instant at most 7 days ahead (a past instant, one beyond 7 days, a missing `pausedUntil`, or `pausedUntil` with `attivo` is `400` naming `pausedUntil`).',
          'A conversation handed to the clinic (`allo_studio`) can only be switched on: a pause is `409 conflict`, reason `handed_to_clinic`. `If-Match` with an old `ETag` is `409 conflict`, reason `version_mismatch`.',
          'Response: the conversation in its new state, with its new `ETag`.',
        ].join('\n\n'),
        params: IdParams,
        headers: IfMatchHeaders,
        body: BotChangeSchema,
        response: { 200: ConversationSchema },
      },
      config: { etag: true, reasons: CONVERSATION_REASONS.updateBot, scopes: ['messages:write'], errorStatuses: [409], bodyIssues: botChangeIssues },
    },
    async (request, reply) => {
      const row = await updateBot(ctx.db, request.actor, request.params.id, request.body, expectedVersion(request));
      setEtag(reply, row.version);
      return conversationView(row);
    },
  );
}

/**
 * Example: a chat bot handing a conversation to a person.
 *
 *   1. search the patient by what they wrote (searchPatients): a name, a phone, a tax code;
 *   2. read the conversation and its messages (getConversation, listConversationMessages,
 *      following nextCursor);
 *   3. pause the bot while a person of the clinic answers (updateConversationBot, at most 7 days),
 *      sending the conversation's ETag as If-Match so a concurrent change is not overwritten.
 *
 * Run: DCM_BASE_URL=… DCM_API_KEY=… CONVERSATION_ID=… QUERY='Mario Rossi' npx tsx examples/chat-bot.ts
 */
import { ApiClientError, createClient, type DentalClinicClient } from '../packages/client/src/index.js';

export const CHAT_BOT_OPERATIONS = ['searchPatients', 'getConversation', 'listConversationMessages', 'updateConversationBot'] as const;

export interface HandOffInput {
  conversationId: string;
  /** What the person wrote about themselves: a name, a phone, a tax code or an email. */
  query: string;
  /** How long the bot stays silent (default 60 minutes; at most 7 days). */
  pauseMinutes?: number;
}

export interface HandOffResult {
  /** The patient the search found, when it is unambiguous. */
  patient: { id: string; name: string; score: number } | null;
  ambiguous: boolean;
  messages: { id: string; direction: string; body: string | null }[];
  conversation: { id: string; botState: string; botPausedUntil: string | null };
}

export async function handOffToClinic(api: DentalClinicClient, input: HandOffInput): Promise<HandOffResult> {
  await api.ensureOperations(CHAT_BOT_OPERATIONS);

  // 1. The best hit, unless several are as probable as it (closeMatches > 1).
  const search = await api.call('searchPatients', { params: { query: { q: input.query, limit: 5 } } });
  const best = search.data[0] ?? null;
  const ambiguous = search.closeMatches > 1;

  // 2. The conversation and all its messages, page after page.
  const { response } = await api.callWithResponse('getConversation', { params: { path: { id: input.conversationId } } });
  const etag = response.headers.get('etag');
  const messages: HandOffResult['messages'] = [];
  for await (const m of api.paginateOperation('listConversationMessages', { params: { path: { id: input.conversationId }, query: { limit: 100 } } })) {
    messages.push({ id: m.id, direction: m.direction, body: m.body ?? null });
  }

  // 3. Pause the bot; If-Match guards against a change made meanwhile (409 version_mismatch).
  const pausedUntil = new Date(Date.now() + (input.pauseMinutes ?? 60) * 60_000).toISOString();
  const paused = await api.call('updateConversationBot', {
    params: { path: { id: input.conversationId } },
    headers: etag ? { 'If-Match': etag } : {},
    body: { state: 'in_pausa', pausedUntil },
  });

  return {
    patient: best && !ambiguous ? { id: best.id, name: best.name, score: best.score } : null,
    ambiguous,
    messages,
    conversation: { id: paused.id, botState: paused.botState, botPausedUntil: paused.botPausedUntil ?? null },
  };
}

async function main(): Promise<void> {
  const api = createClient({ baseUrl: process.env.DCM_BASE_URL ?? 'http://127.0.0.1:3000/v1', apiKey: process.env.DCM_API_KEY ?? '' });
  const result = await handOffToClinic(api, { conversationId: process.env.CONVERSATION_ID ?? '', query: process.env.QUERY ?? 'Mario Rossi' });
  console.log(JSON.stringify(result, null, 2));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error) => {
    console.error(error instanceof ApiClientError ? `${error.status} ${error.code}: ${error.message} (${error.requestId})` : error);
    process.exit(1);
  });
}

/**
 * Example: a chat bot handing a conversation to a person.
 *
 *   1. find the conversation by itself: the newest `conversation.message_received` event
 *      (listEvents; a webhook destination receives the same event as it happens);
 *   2. confirm who wrote: searchPatients with the name they gave AND a second detail they gave
 *      (their date of birth). A name alone never identifies a patient (people who are not
 *      patients get close hits): without `confirmed: true` the bot attaches nobody and asks the
 *      person for the detail (`ask`), and it never takes a patient other than the one the
 *      conversation already belongs to;
 *   3. read the conversation and its messages (getConversation, listConversationMessages,
 *      following nextCursor);
 *   4. pause the bot while a person of the clinic answers (updateConversationBot, at most 7 days),
 *      sending the conversation's ETag as If-Match so a concurrent change is not overwritten.
 *
 * Run: DCM_BASE_URL=… DCM_API_KEY=… QUERY='Mario Rossi' BIRTH_DATE=1980-01-01 npx tsx examples/chat-bot.ts
 * (optional: CONVERSATION_ID, else the conversation of the newest message received).
 */
import { ApiClientError, createClient, type DentalClinicClient } from '../packages/client/src/index.js';

export const CHAT_BOT_OPERATIONS = ['listEvents', 'searchPatients', 'getConversation', 'listConversationMessages', 'updateConversationBot'] as const;

export interface HandOffInput {
  /** The conversation; default: the one of the newest message received in the last 7 days. */
  conversationId?: string;
  /** What the person wrote about themselves: a name, a phone, a tax code or an email. */
  query: string;
  /** The date of birth they wrote (YYYY-MM-DD): the second detail that confirms who they are. */
  birthDate?: string;
  /** How long the bot stays silent (default 60 minutes; at most 7 days). */
  pauseMinutes?: number;
}

export interface HandOffResult {
  /** The patient, only when confirmed by the second detail and not another than the conversation's. */
  patient: { id: string; name: string; confirmedBy: string[] } | null;
  /** What to write to the person when nobody is confirmed (null when a patient is). */
  ask: string | null;
  messages: { id: string; direction: string; body: string | null }[];
  conversation: { id: string; patientId: string | null; botState: string; botPausedUntil: string | null };
}

/** The conversation of the newest message received: the events of the last 7 days, oldest first. */
async function newestConversation(api: DentalClinicClient): Promise<string | null> {
  const since = new Date(Date.now() - 7 * 86_400_000).toISOString();
  let conversationId: string | null = null;
  for await (const e of api.paginateOperation('listEvents', {
    params: { query: { type: 'conversation.message_received', updatedSince: since, limit: 200 } },
  })) {
    conversationId = (e.data as { conversationId: string }).conversationId;
  }
  return conversationId;
}

export async function handOffToClinic(api: DentalClinicClient, input: HandOffInput): Promise<HandOffResult> {
  await api.ensureOperations(CHAT_BOT_OPERATIONS);

  // 1. The conversation: given, or found from the events.
  const conversationId = input.conversationId ?? (await newestConversation(api));
  if (!conversationId) throw new Error('no conversation: no message was received in the last 7 days');
  const { data: conversation, response } = await api.callWithResponse('getConversation', { params: { path: { id: conversationId } } });
  const etag = response.headers.get('etag');

  // 2. Who wrote: confirmed by a second detail, or nobody (and the bot asks for it).
  let patient: HandOffResult['patient'] = null;
  if (input.birthDate) {
    const search = await api.call('searchPatients', { params: { query: { q: input.query, birthDate: input.birthDate, limit: 5 } } });
    const hit = search.confirmed ? search.data[0]! : null;
    // A conversation that already belongs to a patient is never given to another one.
    if (hit && (conversation.patientId == null || conversation.patientId === hit.id)) patient = { id: hit.id, name: hit.name, confirmedBy: search.confirmedBy };
  }
  const ask = patient ? null : 'Per sicurezza, mi scrive anche la sua data di nascita (per esempio 12/04/1988)?';

  // 3. All its messages, page after page.
  const messages: HandOffResult['messages'] = [];
  for await (const m of api.paginateOperation('listConversationMessages', { params: { path: { id: conversationId }, query: { limit: 100 } } })) {
    messages.push({ id: m.id, direction: m.direction, body: m.body ?? null });
  }

  // 4. Pause the bot; If-Match guards against a change made meanwhile (409 version_mismatch).
  const pausedUntil = new Date(Date.now() + (input.pauseMinutes ?? 60) * 60_000).toISOString();
  const paused = await api.call('updateConversationBot', {
    params: { path: { id: conversationId } },
    headers: etag ? { 'If-Match': etag } : {},
    body: { state: 'in_pausa', pausedUntil },
  });

  return {
    patient,
    ask,
    messages,
    conversation: { id: paused.id, patientId: paused.patientId ?? null, botState: paused.botState, botPausedUntil: paused.botPausedUntil ?? null },
  };
}

async function main(): Promise<void> {
  const api = createClient({ baseUrl: process.env.DCM_BASE_URL ?? 'http://127.0.0.1:3000/v1', apiKey: process.env.DCM_API_KEY ?? '' });
  const result = await handOffToClinic(api, {
    conversationId: process.env.CONVERSATION_ID || undefined,
    query: process.env.QUERY ?? 'Mario Rossi',
    birthDate: process.env.BIRTH_DATE || undefined,
  });
  console.log(JSON.stringify(result, null, 2));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error) => {
    console.error(error instanceof ApiClientError ? `${error.status} ${error.code}: ${error.message} (${error.requestId})` : error);
    process.exit(1);
  });
}

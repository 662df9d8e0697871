/**
 * The chat's SQL: conversations, their messages, the bot's state; rows in, rows out (null where
 * the row is not the clinic's). The rules are service.ts' and jobs.ts'.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Actor } from '../../core/actor.js';
import { keysetPage } from '../../db/keyset.js';
import type { ChatMessagesTable, ConversationsTable } from '../../db/tables/agenda.js';
import type { Db, Transaction } from '../../db/transaction.js';
import type { BotChange, MessageListQuery, Transcription } from './schema.js';

export type ConversationRow = Selectable<ConversationsTable>;
export type MessageRow = Selectable<ChatMessagesTable>;

export async function listMessages(
  db: Db,
  actor: Actor,
  conversationId: string,
  q: MessageListQuery,
): Promise<{ items: MessageRow[]; nextCursor: string | null }> {
  const cursorScope = `messages:${actor.clinicId}:${conversationId}:${q.updatedSince ?? ''}`;
  let query = db.selectFrom('chat_messages').selectAll().where('conversation_id', '=', conversationId).where('clinic_id', '=', actor.clinicId);
  if (q.updatedSince) query = query.where('created_at', '>=', new Date(q.updatedSince));
  return keysetPage(query, {
    columns: ['created_at', 'id'],
    at: (r) => r.created_at,
    secret: actor.cursorSecret,
    scope: cursorScope,
    cursor: q.cursor,
    limit: q.limit,
  });
}

export async function setBot(trx: Transaction, id: string, state: BotChange['state'], until: Date | null): Promise<ConversationRow> {
  return trx
    .updateTable('conversations')
    .set({ bot_state: state, bot_paused_until: until, updated_at: sql`now()`, version: sql`version + 1` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The phone of the patient, or else of the lead, a conversation is opened for (as stored). */
export async function ownerPhone(trx: Transaction, owner: { patientId?: string; leadId?: string }): Promise<string | null> {
  const row = owner.patientId
    ? await trx.selectFrom('patients').select('phone').where('id', '=', owner.patientId).executeTakeFirst()
    : await trx.selectFrom('leads').select('phone').where('id', '=', owner.leadId!).executeTakeFirst();
  return row?.phone ?? null;
}

export async function insertConversation(trx: Transaction, values: Omit<Insertable<ConversationsTable>, 'id'>): Promise<ConversationRow> {
  return trx
    .insertInto('conversations')
    .values({ id: randomUUID(), ...values })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function insertMessage(trx: Transaction, values: Omit<Insertable<ChatMessagesTable>, 'id'>): Promise<MessageRow> {
  return trx
    .insertInto('chat_messages')
    .values({ id: randomUUID(), ...values })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A message moved the conversation: its last inbound or outbound time, and the opt-out a STOP brings. */
export async function touchConversation(
  trx: Transaction,
  id: string,
  message: Pick<MessageRow, 'direction' | 'created_at'>,
  optOut: boolean,
): Promise<ConversationRow> {
  return trx
    .updateTable('conversations')
    .set({
      ...(message.direction === 'in' ? { last_inbound_at: message.created_at } : { last_outbound_at: message.created_at }),
      last_activity_at: message.created_at,
      ...(optOut ? { opted_out: true } : {}),
      updated_at: sql`now()`,
      version: sql`version + 1`,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The message's transcription, or null when the clinic has no such message in that conversation. */
export async function setTranscription(db: Db, clinicId: string, conversationId: string, messageId: string, input: Transcription): Promise<MessageRow | null> {
  const row = await db
    .updateTable('chat_messages')
    .set({ transcription_status: input.transcriptionStatus, ...(input.transcription !== undefined ? { transcription: input.transcription } : {}) })
    .where('id', '=', messageId)
    .where('conversation_id', '=', conversationId)
    .where('clinic_id', '=', clinicId)
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

export async function handOff(trx: Transaction, id: string): Promise<ConversationRow> {
  return trx
    .updateTable('conversations')
    .set({ bot_state: 'allo_studio', bot_paused_until: null, updated_at: sql`now()`, version: sql`version + 1` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The conversation opted out, or null when the clinic has no such conversation. */
export async function optOut(db: Db, clinicId: string, id: string): Promise<ConversationRow | null> {
  const row = await db
    .updateTable('conversations')
    .set({ opted_out: true, updated_at: sql`now()`, version: sql`version + 1` })
    .where('id', '=', id)
    .where('clinic_id', '=', clinicId)
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

/** Pauses whose time has passed go back to `attivo` (a conditional UPDATE: each row changes once). */
export async function expireBotPauses(db: Db): Promise<number> {
  const result = await db
    .updateTable('conversations')
    .set({ bot_state: 'attivo', bot_paused_until: null, updated_at: sql`now()`, version: sql`version + 1` })
    .where('bot_state', '=', 'in_pausa')
    .where('bot_paused_until', '<=', sql<Date>`now()`)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Chat conversations with the bot (spec 2.7, 2.8, 3.1, 4.6, 4.7) and the back-office
 * operations that feed them: open, record messages, hand to the clinic, opt out.
 */
import type { Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import { assertVersion } from '../../core/version.js';
import { recordEvent } from '../../events/record.js';
import type { BotChange, ConversationView, MessageListQuery, MessageView, NewConversation, NewMessage, Transcription } from './schema.js';
import { toCanonicalPhone } from '../../lib/phone.js';
import { checkRefs, findScoped, lockScoped } from '../../db/scoped.js';
import type { Db } from '../../db/transaction.js';
import { botChangeIssues, messageType, newConversationIssues, newMessageIssues } from './checks.js';
import * as store from './store.js';
import type { ConversationRow, MessageRow } from './store.js';

/** A pause whose time has passed reads as `attivo` (spec 3.1). */
export function conversationView(row: ConversationRow, now = new Date()): ConversationView {
  const expired = row.bot_state === 'in_pausa' && (row.bot_paused_until === null || row.bot_paused_until.getTime() <= now.getTime());
  return {
    id: row.id,
    patientId: row.patient_id,
    leadId: row.lead_id,
    phone: row.phone,
    botState: expired ? 'attivo' : row.bot_state,
    botPausedUntil: expired || row.bot_state !== 'in_pausa' ? null : row.bot_paused_until!.toISOString(),
    optedOut: row.opted_out,
    lastInboundAt: row.last_inbound_at?.toISOString() ?? null,
    lastOutboundAt: row.last_outbound_at?.toISOString() ?? null,
    lastActivityAt: row.last_activity_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function messageView(row: MessageRow, withTranscription: boolean): MessageView {
  const view: MessageView = {
    id: row.id,
    direction: row.direction,
    author: row.author,
    type: row.type,
    body: row.body,
    occurredAt: row.occurred_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    mediaMimeType: row.media_mime_type,
    mediaDurationSeconds: row.media_duration_seconds,
    documentId: row.document_id,
    transcriptionStatus: row.transcription_status,
  };
  if (withTranscription) view.transcription = row.transcription;
  return view;
}

export async function findConversation(db: Db, actor: Actor, id: string): Promise<ConversationRow> {
  return findScoped(db, 'conversations', actor, id);
}

export async function listMessages(
  db: Db,
  actor: Actor,
  conversationId: string,
  q: MessageListQuery,
  withTranscription: (conversation: ConversationRow) => boolean,
) {
  const conversation = await findConversation(db, actor, conversationId);
  const page = await store.listMessages(db, actor, conversation.id, q);
  const transcription = withTranscription(conversation);
  return { data: page.items.map((r) => messageView(r, transcription)), nextCursor: page.nextCursor, transcription };
}

/** PATCH /conversations/{id}/bot per spec 3.1. */
export async function updateBot(db: Db, actor: Actor, id: string, input: BotChange, expected: number | null): Promise<ConversationRow> {
  const issues = botChangeIssues(input);
  const until = input.state === 'in_pausa' && input.pausedUntil !== undefined ? new Date(input.pausedUntil) : null;
  if (issues.length > 0) throw ApiError.invalid('body', issues);
  return db.transaction().execute(async (trx) => {
    const current = await lockScoped(trx, 'conversations', actor, id);
    assertVersion(expected, current.version);
    if (input.state === 'in_pausa' && current.bot_state === 'allo_studio') {
      throw ApiError.conflict('handed_to_clinic', {}, 'La conversazione è stata passata allo studio: si può solo riattivare il bot.');
    }
    return store.setBot(trx, id, input.state, until);
  });
}

// ---- Back office ----

export async function openConversation(db: Db, actor: Actor, input: NewConversation): Promise<ConversationRow> {
  return db.transaction().execute(async (trx) => {
    const { issues, rows } = await checkRefs(trx, actor, [
      { field: 'patientId', table: 'patients', id: input.patientId },
      { field: 'leadId', table: 'leads', id: input.leadId },
      { field: 'facilityId', table: 'facilities', id: input.facilityId },
    ]);
    issues.push(...newConversationIssues(input, actor));
    let phone = input.phone === undefined ? null : toCanonicalPhone(input.phone, actor.region);
    if (issues.length > 0) throw ApiError.invalid('body', issues);
    if (phone === null) {
      const stored = await store.ownerPhone(trx, input);
      phone = stored ? (toCanonicalPhone(stored, actor.region) ?? stored) : null;
    }
    const facilityId = input.facilityId ?? rows.get('patientId')?.facility_id ?? rows.get('leadId')?.facility_id ?? null;
    return store.insertConversation(trx, {
      clinic_id: actor.clinicId,
      facility_id: facilityId,
      patient_id: input.patientId ?? null,
      lead_id: input.leadId ?? null,
      phone,
    });
  });
}

const STOP = /^\s*stop\s*$/i;

/**
 * Records a message. Inbound: `conversation.message_received` (ids only), and a text `STOP`
 * opts the conversation out. Outbound from the bot to an opted-out conversation is refused:
 * `409 conflict`, reason `opted_out`.
 */
export async function recordMessage(
  db: Db,
  actor: Actor,
  conversationId: string,
  input: NewMessage,
): Promise<{ conversation: ConversationRow; message: MessageRow }> {
  const author = input.author ?? (input.direction === 'in' ? 'paziente' : 'bot');
  const type = messageType(input) as NonNullable<NewMessage['type']>;
  const issues = newMessageIssues(input);
  if (issues.length > 0) throw ApiError.invalid('body', issues);
  return db.transaction().execute(async (trx) => {
    const current = await lockScoped(trx, 'conversations', actor, conversationId);
    if (input.direction === 'out' && author === 'bot' && current.opted_out)
      throw ApiError.conflict('opted_out', {}, 'Il paziente ha scritto STOP: nessun messaggio automatico.');
    const message = await store.insertMessage(trx, {
      clinic_id: actor.clinicId,
      conversation_id: current.id,
      direction: input.direction,
      author,
      type,
      body: input.body ?? null,
      occurred_at: input.occurredAt ? new Date(input.occurredAt) : new Date(),
      media_mime_type: input.mediaMimeType ?? null,
      media_duration_seconds: input.mediaDurationSeconds ?? null,
      transcription_status: input.transcriptionStatus ?? (input.transcription ? 'completata' : 'assente'),
      transcription: input.transcription ?? null,
    });
    const optOut = input.direction === 'in' && type === 'testo' && STOP.test(input.body ?? '');
    const conversation = await store.touchConversation(trx, current.id, message, optOut);
    if (input.direction === 'in') {
      await recordEvent(trx, {
        log: actor.log,
        clinicId: actor.clinicId,
        type: 'conversation.message_received',
        facilityId: current.facility_id,
        data: { id: message.id, conversationId: current.id, patientId: current.patient_id, leadId: current.lead_id },
      });
    }
    return { conversation, message };
  });
}

/** Sets the transcription of a voice message (when the transcriber finishes). */
export async function setTranscription(db: Db, actor: Actor, conversationId: string, messageId: string, input: Transcription): Promise<MessageRow> {
  const row = await store.setTranscription(db, actor.clinicId, conversationId, messageId, input);
  if (!row) throw ApiError.notFound();
  return row;
}

/** A person takes the conversation: `allo_studio`, `conversation.handoff_requested`. Already there: unchanged, no event. */
export async function handOff(db: Db, actor: Actor, id: string): Promise<ConversationRow> {
  return db.transaction().execute(async (trx) => {
    const current = await lockScoped(trx, 'conversations', actor, id);
    if (current.bot_state === 'allo_studio') return current;
    const row = await store.handOff(trx, id);
    await recordEvent(trx, {
      log: actor.log,
      clinicId: actor.clinicId,
      type: 'conversation.handoff_requested',
      facilityId: row.facility_id,
      data: { id: row.id, patientId: row.patient_id, leadId: row.lead_id, botState: row.bot_state, updatedAt: row.updated_at.toISOString() },
    });
    return row;
  });
}

/** The patient wrote STOP (recorded by hand): no automatic messages from now on. */
export async function optOut(db: Db, actor: Actor, id: string): Promise<ConversationRow> {
  const row = await store.optOut(db, actor.clinicId, id);
  if (!row) throw ApiError.notFound();
  return row;
}

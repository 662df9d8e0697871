/**
 * The checks of conversation bodies that need no database: a pause within its week, who a new
 * conversation is with, a text message with its text. For the services on a valid body and the
 * routes' `config.bodyIssues` on a body its schema refused (src/lib/loose.ts).
 */
import type { ActorEnvironment } from '../../core/actor.js';
import type { ValidationIssue } from '../../core/errors.js';
import { instant, phoneIssue, record } from '../../lib/loose.js';

/** The longest pause of the bot (spec 3.1). */
const MAX_PAUSE_MS = 7 * 86_400_000;

/** PATCH …/bot: `pausedUntil` with `in_pausa` only, in the future and within a week. */
export function botChangeIssues(body: unknown, _env?: unknown, now = Date.now()): ValidationIssue[] {
  const b = record(body);
  if (b.state !== 'in_pausa')
    return b.pausedUntil !== undefined && b.state === 'attivo' ? [{ path: 'pausedUntil', message: 'campo non previsto con state attivo' }] : [];
  if (b.pausedUntil === undefined) return [{ path: 'pausedUntil', message: 'campo obbligatorio con state in_pausa' }];
  const until = instant(b.pausedUntil);
  if (until === undefined) return [];
  if (until <= now) return [{ path: 'pausedUntil', message: 'deve essere un istante futuro' }];
  if (until > now + MAX_PAUSE_MS) return [{ path: 'pausedUntil', message: 'la pausa può durare al massimo 7 giorni' }];
  return [];
}

/** A new conversation: a patient, a lead or a phone number, not a patient and a lead. */
export function newConversationIssues(body: unknown, env: Pick<ActorEnvironment, 'region'>): ValidationIssue[] {
  const b = record(body);
  const issues: ValidationIssue[] = [];
  if (b.patientId && b.leadId) issues.push({ path: 'leadId', message: 'una conversazione è di un paziente, di un contatto o di un numero: non di entrambi' });
  if (b.phone !== undefined) issues.push(...phoneIssue(b.phone, env.region, 'phone', 'numero di telefono non valido'));
  else if (!b.patientId && !b.leadId) issues.push({ path: 'phone', message: 'serve patientId, leadId o phone' });
  return issues;
}

/** A message's type: as sent, else `vocale` with a duration, else `testo`. */
export const messageType = (b: { type?: unknown; mediaDurationSeconds?: unknown }): unknown => b.type ?? (b.mediaDurationSeconds != null ? 'vocale' : 'testo');

/** A new message: a text message has its text. */
export function newMessageIssues(body: unknown): ValidationIssue[] {
  const b = record(body);
  return messageType(b) === 'testo' && !b.body ? [{ path: 'body', message: 'un messaggio di testo ha un body' }] : [];
}

/**
 * Replaying a time range to one destination: the recovery after a receiver was down
 * longer than the retries last, without 3 redeliveries per delivery. The rules are here; the
 * statement is in replay-store.ts.
 *
 * - The range is `[from, to)` on the events' `createdAt`, `from` within the last 30 days (the
 *   events kept) and before `to`; otherwise `400 invalid_request` naming the field.
 * - One new delivery per event the destination would receive now (its subscription, its
 *   creating key's scopes and facilities), with a new delivery id and the usual retries.
 * - At most 10,000 events per call: more is `409 conflict` reason `replay_too_large` and
 *   nothing is queued (a narrower range, then the next one).
 * - Idempotent: an event whose delivery to this destination is still pending or being sent is
 *   not queued again (counted in `alreadyPending`), so a repeated call adds nothing while the
 *   first one's deliveries wait; with `Idempotency-Key` a retry answers the first answer.
 * - A destination switched off is `409 conflict` reason `endpoint_disabled` (switch it on
 *   first); one whose creating key is no longer active, reason `key_inactive`.
 */
import { ApiError } from '../../core/errors.js';
import { replayBodyIssues } from './checks.js';
import type { Actor } from '../../core/actor.js';
import type { Db } from '../../db/transaction.js';
import { getEndpoint } from './destinations.js';
import { insertReplayDeliveries } from './replay-store.js';
import type { ReplayRequest, ReplayResult } from './schema.js';

export const REPLAY_LIMIT = 10_000;
export async function replayEvents(db: Db, actor: Actor, endpointId: string, input: ReplayRequest, now = new Date()): Promise<ReplayResult> {
  const { row } = await getEndpoint(db, actor, endpointId);
  const from = new Date(input.from);
  const to = new Date(input.to);
  const issues = replayBodyIssues(input, undefined, now.getTime());
  if (issues.length) throw ApiError.invalid('body', issues);
  if (!row.enabled) {
    throw ApiError.conflict('endpoint_disabled', {}, 'La destinazione è disattivata: riattivala prima di chiedere un nuovo invio.');
  }
  // In a transaction: on an idempotent request's handle it records whether it committed (src/db/IDEMPOTENCY.md, rule 5).
  const outcome = await db
    .transaction()
    .execute((trx) => insertReplayDeliveries(trx, { clinicId: actor.clinicId, endpointId: row.id, from, to, limit: REPLAY_LIMIT }));
  switch (outcome.kind) {
    case 'not_found':
      throw ApiError.notFound();
    case 'key_inactive':
      throw ApiError.conflict('key_inactive', {}, 'La chiave che ha creato la destinazione non è più attiva: crea la destinazione con una chiave attiva.');
    case 'too_many':
      throw ApiError.conflict(
        'replay_too_large',
        { limit: outcome.limit },
        `Più di ${outcome.limit} eventi in questo intervallo: dividilo in intervalli più brevi.`,
      );
    case 'queued':
      return { endpointId: row.id, from: from.toISOString(), to: to.toISOString(), queued: outcome.queued, alreadyPending: outcome.alreadyPending };
  }
}

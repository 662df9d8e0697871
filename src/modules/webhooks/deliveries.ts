/** Reading deliveries and events, redelivering, and the one-off `webhook.test` (spec 4.10, 6). */
import { randomUUID } from 'node:crypto';
import type { Config } from '../../config.js';
import type { SignatureScheme } from '../../db/tables/webhooks.js';
import { ApiError } from '../../core/errors.js';
import type { Actor } from '../../core/actor.js';
import * as store from './delivery-store.js';
import type { DeliveryRow } from './delivery-store.js';
import { MAX_REDELIVERIES } from './policy.js';
import { createSender } from './sender.js';
import { deliveryHeaders, signingSecrets } from './signing.js';
import type { AttemptView, DeliveryQuery, DeliveryView, EventEnvelope, TestOutcome } from './schema.js';
import type { Db } from '../../db/transaction.js';

export { RETENTION_DAYS } from './delivery-store.js';

const iso = (d: Date | string) => new Date(d).toISOString();

function toView(r: DeliveryRow): DeliveryView {
  return {
    id: r.id,
    endpointId: r.endpoint_id,
    eventId: r.event_id,
    eventType: r.event_type,
    status: r.status,
    skippedReason: r.skipped_reason,
    attemptCount: r.attempt_count,
    redeliveries: r.redeliveries,
    nextAttemptAt: r.status === 'pending' ? iso(r.next_attempt_at) : null,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    finishedAt: r.finished_at ? iso(r.finished_at) : null,
  };
}

export async function listDeliveries(db: Db, actor: Actor, q: DeliveryQuery) {
  const scope = `webhook-deliveries:${actor.clinicId}:${actor.keyId}:${q.endpointId ?? ''}:${q.status ?? ''}`;
  const page = await store.deliveryPage(db, actor, q, scope);
  return { data: page.items.map(toView), nextCursor: page.nextCursor };
}

export async function getDelivery(db: Db, actor: Actor, id: string): Promise<DeliveryView & { attempts: AttemptView[] }> {
  const row = await store.deliveryOf(db, actor, id);
  if (!row) throw ApiError.notFound();
  const attempts = await store.attemptsOf(db, id);
  return {
    ...toView(row),
    attempts: attempts.map((a) => ({
      number: a.number,
      startedAt: iso(a.started_at),
      durationMs: a.duration_ms,
      statusCode: a.status_code,
      error: a.error,
      success: a.success,
      redelivery: a.redelivery,
    })),
  };
}

/**
 * Sends a finished delivery once more, same body and idempotency key (spec 3.2): the
 * delivery goes back to `pending` with one more attempt allowed and no retries.
 * 409 conflict reasons: `redeliver_limit` (3 done), `delivery_not_finished` (pending or
 * delivering), `endpoint_deleted`, `endpoint_disabled`.
 * A test clinic's delivery is counted but stays as it is: nothing leaves a test clinic.
 */
export async function redeliver(db: Db, actor: Actor, id: string): Promise<DeliveryView & { attempts: AttemptView[] }> {
  await db.transaction().execute(async (trx) => {
    const row = await store.lockForRedelivery(trx, actor, id);
    if (!row) throw ApiError.notFound();
    if (row.status !== 'succeeded' && row.status !== 'discarded') {
      throw ApiError.conflict('delivery_not_finished', {}, 'La consegna è ancora in corso: si può reinviare solo una consegna riuscita o scartata.');
    }
    if (row.redeliveries >= MAX_REDELIVERIES) {
      throw ApiError.conflict('redeliver_limit', { limit: MAX_REDELIVERIES }, 'Questa consegna è già stata reinviata 3 volte.');
    }
    if (row.deleted_at) throw ApiError.conflict('endpoint_deleted', {}, 'La destinazione di questa consegna è stata eliminata.');
    if (!row.enabled) throw ApiError.conflict('endpoint_disabled', {}, 'La destinazione è disattivata: riattivala con PATCH enabled: true.');
    // A test clinic's delivery is counted, not sent again.
    await store.redeliver(trx, actor.clinicId, id, row.skipped_reason === 'test_mode' ? 'count_only' : 'requeue');
  });
  return getDelivery(db, actor, id);
}

// ---- events -------------------------------------------------------------------------

interface EventQuery {
  limit: number;
  cursor?: string;
  type?: string;
  updatedSince?: string;
}

/**
 * Events of the last 30 days the key can see: a scope it holds (for `events.skipped`: the
 * scope of `data.type`), and a facility it sees (events without a facility: keys not
 * limited to facilities; `events.skipped` without a facility: every key with the scope).
 * Oldest first (created_at, id); events never change, so `updatedSince` filters on createdAt.
 */
export async function listEvents(db: Db, actor: Actor, q: EventQuery) {
  const scope = `events:${actor.clinicId}:${actor.keyId}:${q.type ?? ''}:${q.updatedSince ?? ''}`;
  const page = await store.eventPage(db, actor, q, scope);
  return {
    data: page.items.map((r): EventEnvelope => ({
      id: r.id,
      eventId: r.id,
      type: r.type,
      createdAt: iso(r.created_at),
      apiVersion: r.api_version,
      livemode: r.livemode,
      facilityId: r.facility_id,
      data: r.data,
    })),
    nextCursor: page.nextCursor,
  };
}

// ---- webhook.test -------------------------------------------------------------------

/**
 * Sends one signed `webhook.test` (empty `data`) at once, no retries, nothing stored.
 * `id` (= X-Service-Idempotency-Key) is fresh for every test. A test-kind key sends nothing.
 */
export async function sendTestEvent(
  row: {
    id: string;
    url: string;
    secret: string;
    previous_secret: string | null;
    previous_secret_expires_at: Date | null;
    signature_scheme: SignatureScheme;
    clinic_id: string;
  },
  actor: Actor,
  config: Config,
): Promise<TestOutcome> {
  const id = randomUUID();
  if (actor.kind === 'test' || actor.testMode) {
    return { id, success: false, statusCode: null, durationMs: null, error: null, skipped: 'test_mode' };
  }
  const now = new Date();
  const body = JSON.stringify({
    id,
    eventId: randomUUID(),
    type: 'webhook.test',
    createdAt: now.toISOString(),
    apiVersion: 'v1',
    livemode: true,
    facilityId: null,
    data: {},
  });
  const headers = deliveryHeaders(id, body, signingSecrets(row, now), now, row.signature_scheme);
  // A sender of its own, closed after the one request: test events are rare, and nothing is left open at shutdown.
  const sender = createSender({ allowInsecure: config.webhookAllowInsecure }, { connections: 1 });
  const result = await sender.send(row.url, body, headers).finally(() => sender.close().catch(() => {}));
  return { id, success: result.success, statusCode: result.statusCode, durationMs: result.durationMs, error: result.error, skipped: null };
}

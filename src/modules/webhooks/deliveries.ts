/** Reading deliveries and events, redelivering, and the one-off `webhook.test` (spec 4.10, 6). */
import { randomUUID } from 'node:crypto';
import { sql, type SqlBool } from 'kysely';
import type { Config } from '../../config.js';
import type { DeliveryStatus, SignatureScheme } from '../../db/tables/webhooks.js';
import { after } from '../../db/keyset.js';
import { EVENTS_CHANNEL } from '../../events/record.js';
import { decodeKeyset, encodeKeyset, pageOf } from '../../core/cursor.js';
import { ApiError } from '../../core/errors.js';
import type { Actor } from '../../core/actor.js';
import { endpointVisible } from './destination-store.js';
import { MAX_REDELIVERIES } from './policy.js';
import { createSender } from './sender.js';
import { deliveryHeaders, signingSecrets } from './signing.js';
import type { AttemptView, DeliveryQuery, DeliveryView, EventEnvelope, TestOutcome } from './schema.js';
import type { Db } from '../../db/transaction.js';

export const RETENTION_DAYS = 30;

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  skipped_reason: string | null;
  attempt_count: number;
  redeliveries: number;
  next_attempt_at: Date;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

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

const DELIVERY_COLUMNS = [
  'd.id',
  'd.endpoint_id',
  'd.event_id',
  'd.event_type',
  'd.status',
  'd.skipped_reason',
  'd.attempt_count',
  'd.redeliveries',
  'd.next_attempt_at',
  'd.created_at',
  'd.updated_at',
  'd.finished_at',
] as const;

/** Deliveries the key sees: of its clinic, of a visible destination, deleted destinations included for 30 days. */
function visibleDeliveries(db: Db, actor: Actor) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .where('d.clinic_id', '=', actor.clinicId)
    .where('e.clinic_id', '=', actor.clinicId)
    .where(endpointVisible(actor))
    .where(sql<SqlBool>`(e.deleted_at IS NULL OR e.deleted_at > now() - make_interval(days => ${RETENTION_DAYS}))`);
}

export async function listDeliveries(db: Db, actor: Actor, q: DeliveryQuery) {
  const scope = `webhook-deliveries:${actor.clinicId}:${actor.keyId}:${q.endpointId ?? ''}:${q.status ?? ''}`;
  let query = visibleDeliveries(db, actor).select(DELIVERY_COLUMNS);
  if (q.endpointId) query = query.where('d.endpoint_id', '=', q.endpointId);
  if (q.status) query = query.where('d.status', '=', q.status);
  if (q.cursor) {
    query = query.where(after(['d.created_at', 'd.id'], decodeKeyset(actor.cursorSecret, scope, q.cursor), 'desc'));
  }
  const rows = await query
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(q.limit + 1)
    .execute();
  const page = pageOf(rows as DeliveryRow[], q.limit, (r) => encodeKeyset(actor.cursorSecret, scope, r.created_at, r.id));
  return { data: page.items.map(toView), nextCursor: page.nextCursor };
}

export async function getDelivery(db: Db, actor: Actor, id: string): Promise<DeliveryView & { attempts: AttemptView[] }> {
  const row = await visibleDeliveries(db, actor).select(DELIVERY_COLUMNS).where('d.id', '=', id).executeTakeFirst();
  if (!row) throw ApiError.notFound();
  const attempts = await db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', id).orderBy('number').execute();
  return {
    ...toView(row as DeliveryRow),
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
    const row = await visibleDeliveries(trx, actor)
      .select(['d.id', 'd.status', 'd.redeliveries', 'd.skipped_reason', 'e.enabled', 'e.deleted_at'])
      .where('d.id', '=', id)
      .forUpdate('d')
      .executeTakeFirst();
    if (!row) throw ApiError.notFound();
    if (row.status !== 'succeeded' && row.status !== 'discarded') {
      throw ApiError.conflict('delivery_not_finished', {}, 'La consegna è ancora in corso: si può reinviare solo una consegna riuscita o scartata.');
    }
    if (row.redeliveries >= MAX_REDELIVERIES) {
      throw ApiError.conflict('redeliver_limit', { limit: MAX_REDELIVERIES }, 'Questa consegna è già stata reinviata 3 volte.');
    }
    if (row.deleted_at) throw ApiError.conflict('endpoint_deleted', {}, 'La destinazione di questa consegna è stata eliminata.');
    if (!row.enabled) throw ApiError.conflict('endpoint_disabled', {}, 'La destinazione è disattivata: riattivala con PATCH enabled: true.');
    if (row.skipped_reason === 'test_mode') {
      await trx
        .updateTable('webhook_deliveries')
        .set({ redeliveries: sql`redeliveries + 1`, updated_at: sql`now()` })
        .where('id', '=', id)
        .execute();
      return;
    }
    await trx
      .updateTable('webhook_deliveries')
      .set({
        status: 'pending',
        skipped_reason: null,
        redeliveries: sql`redeliveries + 1`,
        attempt_limit: sql`attempt_count + 1`,
        next_attempt_at: sql`now()`,
        finished_at: null,
        lease_until: null,
        updated_at: sql`now()`,
      })
      .where('id', '=', id)
      .execute();
    await sql`SELECT pg_notify(${EVENTS_CHANNEL}, ${actor.clinicId})`.execute(trx);
  });
  return getDelivery(db, actor, id);
}

// ---- events -------------------------------------------------------------------------

export interface EventQuery {
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
  const scopes = [...actor.scopes];
  let query = db
    .selectFrom('events')
    .selectAll()
    .where('clinic_id', '=', actor.clinicId)
    .where(sql<SqlBool>`created_at > now() - make_interval(days => ${RETENTION_DAYS})`)
    .where(sql<SqlBool>`scope = ANY(${scopes}::text[])`);
  if (actor.facilityIds !== null) {
    const facilities = [...actor.facilityIds];
    query = query.where(sql<SqlBool>`(facility_id = ANY(${facilities}::uuid[]) OR (facility_id IS NULL AND type = 'events.skipped'))`);
  }
  if (q.type) query = query.where('type', '=', q.type);
  if (q.updatedSince) query = query.where('created_at', '>=', new Date(q.updatedSince));
  if (q.cursor) {
    query = query.where(after(['created_at', 'id'], decodeKeyset(actor.cursorSecret, scope, q.cursor)));
  }
  const rows = await query
    .orderBy('created_at')
    .orderBy('id')
    .limit(q.limit + 1)
    .execute();
  const page = pageOf(rows, q.limit, (r) => encodeKeyset(actor.cursorSecret, scope, r.created_at, r.id));
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

/**
 * The deliveries' and events' SQL as keys read them: visible deliveries (by their destination,
 * deleted ones for RETENTION_DAYS), their attempts, a redelivery, and the events a key may see.
 * The rules are deliveries.ts'.
 */
import { sql, type SqlBool } from 'kysely';
import type { Actor } from '../../core/actor.js';
import { keysetPage } from '../../db/keyset.js';
import type { DeliveryStatus } from '../../db/tables/webhooks.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { EVENTS_CHANNEL } from '../../events/record.js';
import { endpointVisible } from './destination-store.js';
import type { DeliveryQuery } from './schema.js';

export const RETENTION_DAYS = 30;

export interface DeliveryRow {
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

/** A page of deliveries, newest first. */
export async function deliveryPage(db: Db, actor: Actor, q: DeliveryQuery, scope: string): Promise<{ items: DeliveryRow[]; nextCursor: string | null }> {
  let query = visibleDeliveries(db, actor).select(DELIVERY_COLUMNS);
  if (q.endpointId) query = query.where('d.endpoint_id', '=', q.endpointId);
  if (q.status) query = query.where('d.status', '=', q.status);
  const page = await keysetPage(query, {
    columns: ['d.created_at', 'd.id'],
    direction: 'desc',
    at: (r) => r.created_at,
    secret: actor.cursorSecret,
    scope,
    cursor: q.cursor,
    limit: q.limit,
  });
  return { items: page.items as DeliveryRow[], nextCursor: page.nextCursor };
}

export async function deliveryOf(db: Db, actor: Actor, id: string): Promise<DeliveryRow | undefined> {
  return (await visibleDeliveries(db, actor).select(DELIVERY_COLUMNS).where('d.id', '=', id).executeTakeFirst()) as DeliveryRow | undefined;
}

export async function attemptsOf(db: Db, deliveryId: string) {
  return db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('number').execute();
}

/** The delivery (locked) with what a redelivery depends on, or undefined when the key does not see it. */
export async function lockForRedelivery(trx: Transaction, actor: Actor, id: string) {
  return visibleDeliveries(trx, actor)
    .select(['d.id', 'd.status', 'd.redeliveries', 'd.skipped_reason', 'e.enabled', 'e.deleted_at'])
    .where('d.id', '=', id)
    .forUpdate('d')
    .executeTakeFirst();
}

/**
 * Counts a redelivery. `requeue`: the delivery goes back to `pending` with one more attempt
 * allowed, due now, and the workers are woken; `count_only` changes nothing else.
 */
export async function redeliver(trx: Transaction, clinicId: string, id: string, how: 'requeue' | 'count_only'): Promise<void> {
  if (how === 'count_only') {
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
  await sql`SELECT pg_notify(${EVENTS_CHANNEL}, ${clinicId})`.execute(trx);
}

/** A page of the events the key may see (deliveries.ts `listEvents`), oldest first. */
export async function eventPage(db: Db, actor: Actor, q: { limit: number; cursor?: string; type?: string; updatedSince?: string }, scope: string) {
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
  return keysetPage(query, {
    columns: ['created_at', 'id'],
    at: (r) => r.created_at,
    secret: actor.cursorSecret,
    scope,
    cursor: q.cursor,
    limit: q.limit,
  });
}

/**
 * The webhook destinations' SQL: the visibility condition (module comment of destinations.ts),
 * the creation under the clinic's limit, reads, changes at a version, deletion and rotation.
 */
import { sql, type Expression, type Insertable, type Selectable, type SqlBool, type Updateable } from 'kysely';
import type { Actor } from '../../core/actor.js';
import type { WebhookEndpointsTable } from '../../db/tables/webhooks.js';
import type { Db, Transaction } from '../../db/transaction.js';

export type EndpointRow = Selectable<WebhookEndpointsTable>;
/** What a change may set; the time and the version move with every change. */
export type EndpointSet = Pick<
  Updateable<WebhookEndpointsTable>,
  'url' | 'events' | 'description' | 'signature_scheme' | 'enabled' | 'disabled_reason' | 'consecutive_discarded'
>;

/** SQL condition on an endpoint alias `e`: the caller's key may see it (see the module comment). */
export function endpointVisible(actor: Pick<Actor, 'facilityIds'>, creatorKeyColumn = 'e.api_key_id'): Expression<SqlBool> {
  if (actor.facilityIds === null) return sql<SqlBool>`true`;
  return sql<SqlBool>`EXISTS (SELECT 1 FROM api_keys ck WHERE ck.id = ${sql.ref(creatorKeyColumn)}
    AND ck.facility_ids IS NOT NULL AND ck.facility_ids <@ ${[...actor.facilityIds]}::uuid[])`;
}

/**
 * The destination, or `limit_reached` when the clinic already has `limit` live ones. One
 * creation at a time per clinic (an advisory lock until the commit), so the limit holds under
 * concurrent requests.
 */
export async function insertWithinLimit(
  trx: Transaction,
  limit: number,
  values: Insertable<WebhookEndpointsTable> & { clinic_id: string },
): Promise<{ kind: 'created'; row: EndpointRow } | { kind: 'limit_reached' }> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${'webhook_endpoints:' + values.clinic_id}))`.execute(trx);
  const { count } = await trx
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('clinic_id', '=', values.clinic_id)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  if (Number(count) >= limit) return { kind: 'limit_reached' };
  return { kind: 'created', row: await trx.insertInto('webhook_endpoints').values(values).returningAll().executeTakeFirstOrThrow() };
}

export async function findVisible(db: Db, actor: Actor, id: string): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints as e')
    .selectAll('e')
    .where('e.id', '=', id)
    .where('e.clinic_id', '=', actor.clinicId)
    .where('e.deleted_at', 'is', null)
    .where(endpointVisible(actor))
    .executeTakeFirst();
}

export async function listVisible(db: Db, actor: Actor): Promise<EndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints as e')
    .selectAll('e')
    .where('e.clinic_id', '=', actor.clinicId)
    .where('e.deleted_at', 'is', null)
    .where(endpointVisible(actor))
    .orderBy('e.created_at')
    .orderBy('e.id')
    .execute();
}

/** The changed destination, or undefined when it moved past `version` (or was deleted) meanwhile. */
export async function updateAtVersion(db: Db, id: string, version: number, set: EndpointSet): Promise<EndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({ updated_at: sql`now()`, version: sql`version + 1`, ...set })
    .where('id', '=', id)
    .where('version', '=', version)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export async function softDelete(db: Db, id: string): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ deleted_at: sql`now()`, enabled: false, updated_at: sql`now()`, version: sql`version + 1` })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .execute();
}

/** The new secret; the previous one still signs for `overlapMinutes` (when kept). */
export async function rotate(db: Db, id: string, secret: string, previous: string | null, overlapMinutes: number): Promise<EndpointRow> {
  return db
    .updateTable('webhook_endpoints')
    .set({
      secret,
      previous_secret: previous,
      previous_secret_expires_at: sql`now() + make_interval(mins => ${overlapMinutes})`,
      updated_at: sql`now()`,
      version: sql`version + 1`,
    })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirstOrThrow();
}

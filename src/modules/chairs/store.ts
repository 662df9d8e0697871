/** The SQL of chairs (service.ts). */
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actor.js';
import type { UpdatedListQuery } from '../../core/schemas.js';
import { updatedPage } from '../../db/keyset.js';
import { facilityVisible } from '../../db/tenant.js';
import type { Db } from '../../db/transaction.js';
import type { NewChair } from './schema.js';

export async function insertChair(db: Db, clinicId: string, input: NewChair) {
  return db
    .insertInto('chairs')
    .values({ id: randomUUID(), clinic_id: clinicId, facility_id: input.facilityId, name: input.name })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The back office's list: every chair of the clinic, oldest first. */
export async function chairSummaries(db: Db, clinicId: string) {
  return db
    .selectFrom('chairs')
    .select(['id', 'facility_id as facilityId', 'name'])
    .where('clinic_id', '=', clinicId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** A page of the chairs the actor sees, by last modification. */
export async function pageChairs(db: Db, actor: Actor, q: UpdatedListQuery) {
  const query = db.selectFrom('chairs').selectAll().where('clinic_id', '=', actor.clinicId).where(facilityVisible('facility_id', actor));
  return updatedPage(query, { name: 'chairs', clinicId: actor.clinicId, secret: actor.cursorSecret, q });
}

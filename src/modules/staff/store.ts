/** The SQL of staff profiles (service.ts). */
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actor.js';
import type { UpdatedListQuery } from '../../core/schemas.js';
import { updatedPage } from '../../db/keyset.js';
import { facilityVisible } from '../../db/tenant.js';
import type { Db } from '../../db/transaction.js';
import type { NewStaff } from './schema.js';

export async function insertStaffProfile(db: Db, clinicId: string, input: NewStaff) {
  return db
    .insertInto('staff_profiles')
    .values({
      id: randomUUID(),
      clinic_id: clinicId,
      facility_id: input.facilityId ?? null,
      first_name: input.firstName,
      last_name: input.lastName,
      email: input.email ?? null,
      role: input.role ?? 'staff',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The back office's list: every staff profile of the clinic, oldest first. */
export async function staffSummaries(db: Db, clinicId: string) {
  return db
    .selectFrom('staff_profiles')
    .select(['id', 'facility_id as facilityId', 'first_name as firstName', 'last_name as lastName', 'email', 'role'])
    .where('clinic_id', '=', clinicId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** A page of the staff profiles the actor sees, by last modification. */
export async function pageStaffProfiles(db: Db, actor: Actor, q: UpdatedListQuery) {
  const query = db.selectFrom('staff_profiles').selectAll().where('clinic_id', '=', actor.clinicId).where(facilityVisible('facility_id', actor));
  return updatedPage(query, { name: 'staff-profiles', clinicId: actor.clinicId, secret: actor.cursorSecret, q });
}

/** The SQL of doctors (service.ts): created, changed, listed, and the calendars they work in. */
import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { Actor } from '../../core/actor.js';
import { updatedPage } from '../../db/keyset.js';
import { findScoped } from '../../db/scoped.js';
import type { DoctorsTable } from '../../db/tables/core.js';
import { facilityVisible, type TenantScope } from '../../db/tenant.js';
import type { Db } from '../../db/transaction.js';
import type { DoctorChanges, DoctorListQuery, NewDoctor } from './schema.js';

export type DoctorRow = Selectable<DoctorsTable>;

export async function insertDoctor(db: Db, clinicId: string, input: NewDoctor): Promise<DoctorRow> {
  return db
    .insertInto('doctors')
    .values({
      id: randomUUID(),
      clinic_id: clinicId,
      facility_id: input.facilityId ?? null,
      first_name: input.firstName,
      last_name: input.lastName,
      specialty: input.specialty ?? null,
      display_name: input.displayName ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Only the fields sent change; `updated_at` moves. Null for a doctor not of the clinic. */
export async function updateDoctorRow(db: Db, clinicId: string, id: string, changes: DoctorChanges): Promise<DoctorRow | null> {
  const row = await db
    .updateTable('doctors')
    .set({
      ...(changes.firstName !== undefined && { first_name: changes.firstName }),
      ...(changes.lastName !== undefined && { last_name: changes.lastName }),
      ...(changes.facilityId !== undefined && { facility_id: changes.facilityId }),
      ...(changes.specialty !== undefined && { specialty: changes.specialty }),
      ...(changes.displayName !== undefined && { display_name: changes.displayName }),
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .where('clinic_id', '=', clinicId)
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

/** The back office's list: every doctor of the clinic, oldest first. */
export async function doctorSummaries(db: Db, clinicId: string) {
  return db
    .selectFrom('doctors')
    .select(['id', 'facility_id as facilityId', 'first_name as firstName', 'last_name as lastName'])
    .where('clinic_id', '=', clinicId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** A page of the doctors the actor sees, by last modification, of a facility or of a calendar (one the actor sees). */
export async function pageDoctors(db: Db, actor: Actor, q: DoctorListQuery) {
  let query = db.selectFrom('doctors').selectAll().where('clinic_id', '=', actor.clinicId).where(facilityVisible('facility_id', actor));
  if (q.facilityId) query = query.where('facility_id', '=', q.facilityId);
  if (q.calendarId) {
    const calendarId = q.calendarId;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('calendars')
          .select('calendars.id')
          .where('calendars.id', '=', calendarId)
          .where('calendars.clinic_id', '=', actor.clinicId)
          .where(facilityVisible('calendars.facility_id', actor))
          .where(sql<boolean>`doctors.id = ANY(calendars.doctor_ids)`),
      ),
    );
  }
  return updatedPage(query, {
    name: 'doctors',
    clinicId: actor.clinicId,
    secret: actor.cursorSecret,
    q,
    filters: [q.facilityId?.toLowerCase() ?? null, q.calendarId?.toLowerCase() ?? null],
    id: 'doctors.id',
  });
}

/** The doctor the scope sees (404 otherwise). */
export async function findDoctor(db: Db, scope: TenantScope, id: string): Promise<DoctorRow> {
  return findScoped(db, 'doctors', scope, id);
}

/** The calendars (visible to the actor) that any of the doctors works in, with their doctors. */
export async function calendarsOfDoctors(db: Db, actor: Actor, doctorIds: string[]): Promise<Array<{ id: string; doctor_ids: string[] }>> {
  return db
    .selectFrom('calendars')
    .select(['id', 'doctor_ids'])
    .where('clinic_id', '=', actor.clinicId)
    .where(facilityVisible('facility_id', actor))
    .where(sql<boolean>`doctor_ids && ${doctorIds}::uuid[]`)
    .orderBy('id')
    .execute();
}

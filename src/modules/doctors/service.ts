/**
 * Doctors: as /v1 lists and reads them (with the calendars they work in, among those the key
 * sees), and as the back office creates, changes and lists them.
 */
import type { Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import type { Db } from '../../db/transaction.js';
import { assertClinic } from '../clinics/index.js';
import { assertFacilityOfClinic } from '../facilities/index.js';
import type { DoctorAdminView, DoctorChanges, DoctorListQuery, DoctorView, NewDoctor } from './schema.js';
import * as store from './store.js';

/** How the clinic names a doctor to patients and agents: its display name, else “Dott. <first> <last>”. */
function doctorDisplayName(row: { display_name: string | null; first_name: string; last_name: string }): string {
  return row.display_name ?? `Dott. ${row.first_name} ${row.last_name}`;
}

/** The doctors with the calendars (visible to the actor) they work in. */
async function doctorViews(db: Db, actor: Actor, rows: store.DoctorRow[]): Promise<DoctorView[]> {
  if (rows.length === 0) return [];
  const calendars = await store.calendarsOfDoctors(
    db,
    actor,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    id: r.id,
    firstName: r.first_name,
    lastName: r.last_name,
    displayName: doctorDisplayName(r),
    specialty: r.specialty,
    facilityId: r.facility_id,
    calendarIds: calendars.filter((c) => c.doctor_ids.includes(r.id)).map((c) => c.id),
    active: r.active,
    updatedAt: r.updated_at.toISOString(),
  }));
}

/** /v1: a page of the doctors the key sees, by last modification. */
export async function listDoctors(db: Db, actor: Actor, q: DoctorListQuery): Promise<{ data: DoctorView[]; nextCursor: string | null }> {
  const page = await store.pageDoctors(db, actor, q);
  return { data: await doctorViews(db, actor, page.items), nextCursor: page.nextCursor };
}

export async function getDoctor(db: Db, actor: Actor, id: string): Promise<DoctorView> {
  const row = await store.findDoctor(db, actor, id);
  return (await doctorViews(db, actor, [row]))[0]!;
}

export interface PersonView {
  id: string;
  clinicId: string;
  facilityId: string | null;
  firstName: string;
  lastName: string;
}

/** Back office: a new doctor of the clinic (of one of its facilities, or of none). */
export async function createDoctor(db: Db, clinicId: string, input: NewDoctor): Promise<PersonView> {
  await assertClinic(db, clinicId);
  if (input.facilityId) await assertFacilityOfClinic(db, clinicId, input.facilityId);
  const row = await store.insertDoctor(db, clinicId, input);
  return { id: row.id, clinicId, facilityId: row.facility_id, firstName: row.first_name, lastName: row.last_name };
}

/**
 * Changes a doctor's names, display name, specialty or facility. `updated_at` moves, so
 * `GET /v1/doctors?updatedSince=` shows the change to every integration.
 */
export async function updateDoctor(db: Db, clinicId: string, id: string, changes: DoctorChanges): Promise<DoctorAdminView> {
  await assertClinic(db, clinicId);
  if (changes.facilityId) await assertFacilityOfClinic(db, clinicId, changes.facilityId);
  const row = await store.updateDoctorRow(db, clinicId, id, changes);
  if (!row) throw ApiError.notFound();
  return {
    id: row.id,
    facilityId: row.facility_id,
    firstName: row.first_name,
    lastName: row.last_name,
    displayName: doctorDisplayName(row),
    specialty: row.specialty,
    active: row.active,
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Back office: every doctor of the clinic, oldest first. */
export async function listAllDoctors(db: Db, clinicId: string) {
  await assertClinic(db, clinicId);
  return store.doctorSummaries(db, clinicId);
}

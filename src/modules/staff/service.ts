/** Staff profiles (task assignees, lead owners): as /v1 lists them, and as the back office creates and lists them. */
import type { Actor } from '../../core/actor.js';
import type { UpdatedListQuery } from '../../core/schemas.js';
import type { Db } from '../../db/transaction.js';
import { assertClinic } from '../clinics/index.js';
import { assertFacilityOfClinic } from '../facilities/index.js';
import type { PersonView } from '../doctors/index.js';
import type { NewStaff, StaffProfileView } from './schema.js';
import * as store from './store.js';

/** /v1: a page of the staff profiles the key sees, by last modification. */
export async function listStaffProfiles(db: Db, actor: Actor, q: UpdatedListQuery): Promise<{ data: StaffProfileView[]; nextCursor: string | null }> {
  const page = await store.pageStaffProfiles(db, actor, q);
  return {
    data: page.items.map((r) => ({
      id: r.id,
      firstName: r.first_name,
      lastName: r.last_name,
      role: r.role,
      facilityId: r.facility_id,
      active: r.active,
      updatedAt: r.updated_at.toISOString(),
    })),
    nextCursor: page.nextCursor,
  };
}

/** Back office: a new staff profile of the clinic (of one of its facilities, or of none). */
export async function createStaffProfile(db: Db, clinicId: string, input: NewStaff): Promise<PersonView & { email: string | null; role: string }> {
  await assertClinic(db, clinicId);
  if (input.facilityId) await assertFacilityOfClinic(db, clinicId, input.facilityId);
  const row = await store.insertStaffProfile(db, clinicId, input);
  return {
    id: row.id,
    clinicId,
    facilityId: row.facility_id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    role: row.role,
  };
}

/** Back office: every staff profile of the clinic, oldest first. */
export async function listAllStaffProfiles(db: Db, clinicId: string) {
  await assertClinic(db, clinicId);
  return store.staffSummaries(db, clinicId);
}

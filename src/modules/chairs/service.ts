/** Chairs (a facility's dental units): as /v1 lists them, and as the back office creates and lists them. */
import type { Actor } from '../../core/actor.js';
import type { UpdatedListQuery } from '../../core/schemas.js';
import type { Db } from '../../db/transaction.js';
import { assertClinic } from '../clinics/index.js';
import { assertFacilityOfClinic } from '../facilities/index.js';
import type { ChairAdminView, ChairView, NewChair } from './schema.js';
import * as store from './store.js';

/** /v1: a page of the chairs the key sees, by last modification. */
export async function listChairs(db: Db, actor: Actor, q: UpdatedListQuery): Promise<{ data: ChairView[]; nextCursor: string | null }> {
  const page = await store.pageChairs(db, actor, q);
  return {
    data: page.items.map((r) => ({ id: r.id, name: r.name, facilityId: r.facility_id, active: r.active, updatedAt: r.updated_at.toISOString() })),
    nextCursor: page.nextCursor,
  };
}

/** Back office: a new chair of one of the clinic's facilities. */
export async function createChair(db: Db, clinicId: string, input: NewChair): Promise<ChairAdminView> {
  await assertClinic(db, clinicId);
  await assertFacilityOfClinic(db, clinicId, input.facilityId);
  const row = await store.insertChair(db, clinicId, input);
  return { id: row.id, facilityId: row.facility_id, name: row.name };
}

/** Back office: every chair of the clinic, oldest first. */
export async function listAllChairs(db: Db, clinicId: string) {
  await assertClinic(db, clinicId);
  return store.chairSummaries(db, clinicId);
}

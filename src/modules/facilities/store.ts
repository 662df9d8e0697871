/** The SQL of facilities (service.ts): the row read, created, changed under its version, and listed. */
import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import { updatedPage } from '../../db/keyset.js';
import { prepared } from '../../db/prepared-statements.js';
import type { FacilitiesTable } from '../../db/tables/core.js';
import { facilityVisible } from '../../db/tenant.js';
import type { Db } from '../../db/transaction.js';
import type { Actor } from '../../core/actor.js';
import type { UpdatedListQuery } from '../../core/schemas.js';

export type FacilityRow = Selectable<FacilitiesTable>;

/** The clinic's facility, or null; no visibility check. */
export async function readFacilityRow(db: Db, clinicId: string, id: string): Promise<FacilityRow | null> {
  const row = await db.selectFrom('facilities').selectAll().where('id', '=', id).where('clinic_id', '=', clinicId).executeTakeFirst();
  return row ?? null;
}

/**
 * Whether the facility is the clinic's. A primary-key lookup, prepared: patients, leads and calls
 * check the facility each one is sent with, on their write paths.
 */
export async function facilityOfClinic(db: Db, clinicId: string, id: string): Promise<boolean> {
  const { rows } = await prepared(db.selectFrom('facilities').select('id').where('id', '=', id).where('clinic_id', '=', clinicId)).execute(db);
  return rows.length > 0;
}

export interface FacilityColumns {
  name: string;
  street: string | null;
  city: string | null;
  province: string | null;
  zip_code: string | null;
  phone: string | null;
  email: string | null;
  is_main_location: boolean;
  avg_appointment_minutes: number;
  working_schedule: string | null;
}

export async function insertFacility(db: Db, clinicId: string, columns: FacilityColumns): Promise<{ id: string; name: string }> {
  return db
    .insertInto('facilities')
    .values({ id: randomUUID(), clinic_id: clinicId, ...columns })
    .returning(['id', 'name'])
    .executeTakeFirstOrThrow();
}

type FacilityUpdate = { kind: 'absent' } | { kind: 'version_mismatch'; current: number } | { kind: 'updated' };

/**
 * Sets the columns given (none: nothing changes) on the facility locked at `expected` version
 * (null: any version); the version moves.
 */
export async function updateFacilityRow(db: Db, clinicId: string, id: string, set: Partial<FacilityColumns>, expected: number | null): Promise<FacilityUpdate> {
  return db.transaction().execute(async (trx): Promise<FacilityUpdate> => {
    const current = await trx.selectFrom('facilities').select('version').where('id', '=', id).where('clinic_id', '=', clinicId).forUpdate().executeTakeFirst();
    if (!current) return { kind: 'absent' };
    if (expected !== null && expected !== current.version) return { kind: 'version_mismatch', current: current.version };
    if (Object.keys(set).length === 0) return { kind: 'updated' };
    await trx
      .updateTable('facilities')
      .set({ ...set, updated_at: sql`now()`, version: sql`version + 1` })
      .where('id', '=', id)
      .execute();
    return { kind: 'updated' };
  });
}

/** The back office's list: every facility of the clinic, oldest first. */
export async function facilitySummaries(db: Db, clinicId: string) {
  return db.selectFrom('facilities').select(['id', 'name', 'city']).where('clinic_id', '=', clinicId).orderBy('created_at').orderBy('id').execute();
}

/** A page of the facilities the actor sees, by last modification. */
export async function pageFacilities(db: Db, actor: Actor, q: UpdatedListQuery) {
  const query = db.selectFrom('facilities').selectAll().where('clinic_id', '=', actor.clinicId).where(facilityVisible('id', actor));
  return updatedPage(query, { name: 'facilities', clinicId: actor.clinicId, secret: actor.cursorSecret, q });
}

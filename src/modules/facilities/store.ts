/** The facilities' SQL: the row of a clinic's facility, and its change under a lock. */
import { sql, type Selectable } from 'kysely';
import type { FacilitiesTable } from '../../db/tables/core.js';
import type { Db, Transaction } from '../../db/transaction.js';

export type FacilityRow = Selectable<FacilitiesTable>;

/** The clinic's facility of this id, or undefined (no visibility check). */
export async function facilityRow(db: Db, clinicId: string, id: string): Promise<FacilityRow | undefined> {
  return db.selectFrom('facilities').selectAll().where('id', '=', id).where('clinic_id', '=', clinicId).executeTakeFirst();
}

/** The version of the clinic's facility of this id, locked until commit, or undefined. */
export async function lockFacilityVersion(trx: Transaction, clinicId: string, id: string): Promise<number | undefined> {
  const row = await trx.selectFrom('facilities').select('version').where('id', '=', id).where('clinic_id', '=', clinicId).forUpdate().executeTakeFirst();
  return row?.version;
}

/** Writes these columns of the facility (locked by the caller) and bumps its version. */
export async function updateFacilityColumns(trx: Transaction, id: string, set: Record<string, unknown>): Promise<void> {
  await trx
    .updateTable('facilities')
    .set({ ...set, updated_at: sql`now()`, version: sql`version + 1` })
    .where('id', '=', id)
    .execute();
}

/** Meta's SQL: the key as stored, with its clinic. */
import type { Db } from '../../db/transaction.js';

/** The key of this clinic with its clinic's name, time zone and switches (the key exists: it was just authenticated). */
export async function keyWithClinic(db: Db, clinicId: string, keyId: string) {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('clinics as c', 'c.id', 'k.clinic_id')
    .select([
      'k.id',
      'k.name',
      'k.kind',
      'k.scopes',
      'k.facility_ids',
      'k.agent',
      'k.created_at',
      'k.expires_at',
      'c.name as clinic_name',
      'c.timezone',
      'c.ai_enabled',
      'c.plan_active',
    ])
    .where('k.id', '=', keyId)
    .where('k.clinic_id', '=', clinicId)
    .executeTakeFirstOrThrow();
}

/** The API keys' SQL: issued, listed, revoked, and looked up by token hash with their clinic. */
import { randomUUID } from 'node:crypto';
import { sql, type Insertable, type Selectable } from 'kysely';
import type { ApiKeysTable } from '../../db/tables/core.js';
import type { Db } from '../../db/transaction.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export async function clinicMode(db: Db, clinicId: string): Promise<{ id: string; mode: ApiKeyRow['kind'] } | null> {
  return (await db.selectFrom('clinics').select(['id', 'mode']).where('id', '=', clinicId).executeTakeFirst()) ?? null;
}

/** Which of these ids are facilities of the clinic. */
export async function facilitiesAmong(db: Db, clinicId: string, ids: string[]): Promise<Set<string>> {
  const found = await db
    .selectFrom('facilities')
    .select('id')
    .where('clinic_id', '=', clinicId)
    .where('id', 'in', ids.length ? ids : ['00000000-0000-0000-0000-000000000000'])
    .execute();
  return new Set(found.map((f) => f.id));
}

export async function insertKey(db: Db, values: Omit<Insertable<ApiKeysTable>, 'id'>): Promise<ApiKeyRow> {
  return db
    .insertInto('api_keys')
    .values({ id: randomUUID(), ...values })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Revokes a key (once: a revoked key keeps its time); null when there is no such key (in that clinic, when given). */
export async function revokeKey(db: Db, id: string, by: { clinicId?: string; replacedBy?: string } = {}): Promise<ApiKeyRow | null> {
  let q = db
    .updateTable('api_keys')
    .set({ revoked_at: sql`coalesce(revoked_at, now())`, ...(by.replacedBy ? { replaced_by: by.replacedBy } : {}) })
    .where('id', '=', id);
  if (by.clinicId) q = q.where('clinic_id', '=', by.clinicId);
  return (await q.returningAll().executeTakeFirst()) ?? null;
}

export async function keysOf(db: Db, clinicId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('clinic_id', '=', clinicId).orderBy('created_at').orderBy('id').execute();
}

export async function keyById(db: Db, id: string): Promise<ApiKeyRow | null> {
  return (await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
}

/** The key of a token hash with what the gate needs of its clinic and organization. */
export async function keyByTokenHash(db: Db, tokenHash: string) {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('clinics as c', 'c.id', 'k.clinic_id')
    .innerJoin('organizations as o', 'o.id', 'c.organization_id')
    .select([
      'k.id',
      'k.kind',
      'k.clinic_id',
      'k.scopes',
      'k.facility_ids',
      'k.expires_at',
      'k.revoked_at',
      'k.agent',
      'c.organization_id',
      'c.mode',
      'c.plan_active',
      'c.ai_enabled',
      'c.timezone',
      'o.suspended_at',
    ])
    .where('k.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function touchKey(db: Db, id: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

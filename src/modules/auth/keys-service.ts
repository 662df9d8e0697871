/**
 * API keys: issued with a kind (the clinic's: live or test), scopes, an optional facility
 * set and an optional expiry. The token is shown once, at creation; only its hash is kept.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { ApiKeysTable } from '../../db/tables/core.js';
import { ApiError } from '../../core/errors.js';
import { generateToken, hashToken, tokenPrefix } from './tokens.js';
import { keyBodyIssues } from './checks.js';
import { type Scope } from './scopes.js';
import type { Db } from '../../db/transaction.js';
import type { AgentKind } from '../../core/actor.js';
import type { Static } from 'typebox';
import type { ApiKeySchema, CreatedApiKeySchema } from './schema.js';

export type ApiKeyView = Static<typeof ApiKeySchema>;
/** The key as issued: with its bearer token, shown only now. */
export type CreatedApiKey = Static<typeof CreatedApiKeySchema>;

export interface NewApiKey {
  name: string;
  scopes: string[];
  facilityIds?: string[] | null;
  expiresAt?: Date | null;
  agent?: AgentKind;
}

function toView(row: Selectable<ApiKeysTable>): ApiKeyView {
  return {
    id: row.id,
    clinicId: row.clinic_id,
    name: row.name,
    kind: row.kind,
    prefix: row.token_prefix,
    scopes: row.scopes,
    facilityIds: row.facility_ids,
    agent: row.agent,
    expiresAt: row.expires_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
    replacedBy: row.replaced_by,
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

export async function createApiKey(db: Db, clinicId: string, input: NewApiKey, replaces?: string): Promise<CreatedApiKey> {
  const clinic = await db.selectFrom('clinics').select(['id', 'mode']).where('id', '=', clinicId).executeTakeFirst();
  if (!clinic) throw ApiError.notFound();

  const issues = keyBodyIssues({ ...input, expiresAt: input.expiresAt?.toISOString() });
  const facilityIds = input.facilityIds ? [...new Set(input.facilityIds.map((f) => f.toLowerCase()))] : null;
  if (facilityIds) {
    const found = await db
      .selectFrom('facilities')
      .select('id')
      .where('clinic_id', '=', clinicId)
      .where('id', 'in', facilityIds.length ? facilityIds : ['00000000-0000-0000-0000-000000000000'])
      .execute();
    const known = new Set(found.map((f) => f.id));
    facilityIds.forEach((f, i) => {
      if (!known.has(f)) issues.push({ path: `facilityIds.${i}`, message: 'sede inesistente in questo studio' });
    });
  }
  if (issues.length) throw ApiError.invalid('body', issues);

  const token = generateToken(clinic.mode);
  const row = await db
    .insertInto('api_keys')
    .values({
      id: randomUUID(),
      clinic_id: clinicId,
      name: input.name,
      kind: clinic.mode,
      token_hash: hashToken(token),
      token_prefix: tokenPrefix(token),
      scopes: [...new Set(input.scopes as Scope[])],
      facility_ids: facilityIds,
      expires_at: input.expiresAt ?? null,
      agent: input.agent ?? 'none',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (replaces) {
    await db
      .updateTable('api_keys')
      .set({ revoked_at: sql`coalesce(revoked_at, now())`, replaced_by: row.id })
      .where('id', '=', replaces)
      .where('clinic_id', '=', clinicId)
      .execute();
  }
  return { ...toView(row), token };
}

export async function listApiKeys(db: Db, clinicId: string): Promise<ApiKeyView[]> {
  const rows = await db.selectFrom('api_keys').selectAll().where('clinic_id', '=', clinicId).orderBy('created_at').orderBy('id').execute();
  return rows.map(toView);
}

export async function getApiKey(db: Db, keyId: string): Promise<ApiKeyView> {
  const row = await db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
  if (!row) throw ApiError.notFound();
  return toView(row);
}

export async function revokeApiKey(db: Db, keyId: string): Promise<ApiKeyView> {
  const row = await db
    .updateTable('api_keys')
    .set({ revoked_at: sql`coalesce(revoked_at, now())` })
    .where('id', '=', keyId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw ApiError.notFound();
  return toView(row);
}

/** Issues a new key with the same settings and revokes the old one ("replaced"). */
export async function replaceApiKey(db: Db, keyId: string): Promise<CreatedApiKey> {
  const old = await getApiKey(db, keyId);
  if (old.revokedAt) throw ApiError.conflict('key_revoked', {}, 'La chiave è già revocata.');
  return createApiKey(
    db,
    old.clinicId,
    { name: old.name, scopes: old.scopes, facilityIds: old.facilityIds, agent: old.agent, expiresAt: old.expiresAt ? new Date(old.expiresAt) : null },
    old.id,
  );
}

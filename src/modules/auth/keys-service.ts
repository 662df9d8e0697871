/**
 * API keys: issued with a kind (the clinic's: live or test), scopes, an optional facility
 * set and an optional expiry. The token is shown once, at creation; only its hash is kept.
 */
import { ApiError } from '../../core/errors.js';
import { generateToken, hashToken, tokenPrefix } from './tokens.js';
import { keyBodyIssues } from './checks.js';
import { type Scope } from './scopes.js';
import type { Db } from '../../db/transaction.js';
import type { AgentKind } from '../../core/actor.js';
import type { Static } from 'typebox';
import type { ApiKeySchema, CreatedApiKeySchema } from './schema.js';
import * as store from './store.js';

type ApiKeyView = Static<typeof ApiKeySchema>;
/** The key as issued: with its bearer token, shown only now. */
type CreatedApiKey = Static<typeof CreatedApiKeySchema>;

interface NewApiKey {
  name: string;
  scopes: string[];
  facilityIds?: string[] | null;
  expiresAt?: Date | null;
  agent?: AgentKind;
}

function toView(row: store.ApiKeyRow): ApiKeyView {
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
  const clinic = await store.clinicMode(db, clinicId);
  if (!clinic) throw ApiError.notFound();

  const issues = keyBodyIssues({ ...input, expiresAt: input.expiresAt?.toISOString() });
  const facilityIds = input.facilityIds ? [...new Set(input.facilityIds.map((f) => f.toLowerCase()))] : null;
  if (facilityIds) {
    const known = await store.facilitiesAmong(db, clinicId, facilityIds);
    facilityIds.forEach((f, i) => {
      if (!known.has(f)) issues.push({ path: `facilityIds.${i}`, message: 'sede inesistente in questo studio' });
    });
  }
  if (issues.length) throw ApiError.invalid('body', issues);

  const token = generateToken(clinic.mode);
  const row = await store.insertKey(db, {
    clinic_id: clinicId,
    name: input.name,
    kind: clinic.mode,
    token_hash: hashToken(token),
    token_prefix: tokenPrefix(token),
    scopes: [...new Set(input.scopes as Scope[])],
    facility_ids: facilityIds,
    expires_at: input.expiresAt ?? null,
    agent: input.agent ?? 'none',
  });
  if (replaces) await store.revokeKey(db, replaces, { clinicId, replacedBy: row.id });
  return { ...toView(row), token };
}

export async function listApiKeys(db: Db, clinicId: string): Promise<ApiKeyView[]> {
  const rows = await store.keysOf(db, clinicId);
  return rows.map(toView);
}

async function getApiKey(db: Db, keyId: string): Promise<ApiKeyView> {
  const row = await store.keyById(db, keyId);
  if (!row) throw ApiError.notFound();
  return toView(row);
}

export async function revokeApiKey(db: Db, keyId: string): Promise<ApiKeyView> {
  const row = await store.revokeKey(db, keyId);
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

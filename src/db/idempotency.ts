/**
 * The idempotency store (spec 4, 8): one row per (clinic, Idempotency-Key), owned by the first
 * request for 60 s (a lease another may take over when its holder died), then holding the 2xx
 * response for 24 hours. The rules are in src/db/IDEMPOTENCY.md; the HTTP hooks that use the
 * store are src/http/plugins/idempotency.ts.
 */
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';

/** How long a first request owns its key before another may take it over (its holder died). */
export const LEASE_MS = 60_000;
/** How long a key's record binds it; the agent tools' call ledger (src/modules/tool-calls) keeps its rows as long. */
export const RETENTION_HOURS = 24;
/** A record past its 24 hours: it no longer binds its key (and the purge removes it). */
const expired = () => sql<boolean>`created_at < now() - make_interval(hours => ${RETENTION_HOURS})`;

/** Key order does not change what a body means; a canonical form hashes equal bodies equally. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function bodyHashOf(body: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(body ?? null))
    .digest('hex');
}

/** What a request presents with its key: the same key with another key, operation or body is a reuse. */
interface IdempotencyClaim {
  clinicId: string;
  key: string;
  apiKeyId: string;
  /** `POST /v1/patients`: method and path, no query. */
  operation: string;
  bodyHash: string;
}

type ClaimOutcome =
  /** This request owns the key: run it, then `completeIdempotencyKey` or `releaseIdempotencyKey`. */
  | { kind: 'owned' }
  /** The key was used for another request (another key, operation or body). */
  | { kind: 'reused' }
  /** The first request with this key still runs (its lease is not over). */
  | { kind: 'in_progress' }
  /** The first response held a secret shown once: it was not stored. */
  | { kind: 'not_stored' }
  | { kind: 'replay'; statusCode: number; body: string; headers: Record<string, string> };

/** Takes the key for this request, or says why not (a few tries: rows come and go meanwhile). */
export async function claimIdempotencyKey(db: Kysely<DB>, claim: IdempotencyClaim): Promise<ClaimOutcome> {
  const { clinicId, key } = claim;
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await db
      .insertInto('idempotency_keys')
      .values({
        clinic_id: clinicId,
        idempotency_key: key,
        api_key_id: claim.apiKeyId,
        operation: claim.operation,
        body_hash: claim.bodyHash,
        state: 'in_progress',
        locked_until: new Date(Date.now() + LEASE_MS),
      })
      .onConflict((oc) => oc.columns(['clinic_id', 'idempotency_key']).doNothing())
      .returning('idempotency_key')
      .executeTakeFirst();
    if (inserted) return { kind: 'owned' };

    const existing = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .select(expired().as('expired'))
      .select(sql<boolean>`locked_until < now()`.as('lease_over'))
      .where('clinic_id', '=', clinicId)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    if (!existing) continue; // deleted meanwhile (a failed first request): try again
    if (existing.expired) {
      await db
        .deleteFrom('idempotency_keys')
        .where('clinic_id', '=', clinicId)
        .where('idempotency_key', '=', key)
        .where('created_at', '=', existing.created_at)
        .execute();
      continue;
    }
    // Another API key, operation or body is another request, whatever the first one's state (still
    // running, done, or not stored): its caller gets neither the first one's answer nor a wait.
    if (existing.api_key_id !== claim.apiKeyId || existing.operation !== claim.operation || existing.body_hash !== claim.bodyHash) {
      return { kind: 'reused' };
    }
    if (existing.state === 'in_progress') {
      if (!existing.lease_over) return { kind: 'in_progress' };
      const taken = await db
        .updateTable('idempotency_keys')
        .set({ locked_until: new Date(Date.now() + LEASE_MS) })
        .where('clinic_id', '=', clinicId)
        .where('idempotency_key', '=', key)
        .where('state', '=', 'in_progress')
        .where('locked_until', '=', existing.locked_until)
        .executeTakeFirst();
      return taken.numUpdatedRows === 0n ? { kind: 'in_progress' } : { kind: 'owned' };
    }
    if (existing.response_not_stored) return { kind: 'not_stored' };
    return {
      kind: 'replay',
      statusCode: existing.status_code ?? 200,
      body: existing.response_body ?? '',
      headers: (existing.response_headers ?? {}) as Record<string, string>,
    };
  }
  return { kind: 'in_progress' };
}

/** The owner's 2xx: kept for replays (without its body when it held a secret). */
export async function completeIdempotencyKey(
  db: Kysely<DB>,
  clinicId: string,
  key: string,
  response: { statusCode: number; body: string | null; headers: Record<string, string>; notStored: boolean },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .where('clinic_id', '=', clinicId)
    .where('idempotency_key', '=', key)
    .set({
      state: 'completed',
      status_code: response.statusCode,
      response_body: response.notStored ? null : response.body,
      response_headers: JSON.stringify(response.headers),
      response_not_stored: response.notStored,
    })
    .execute();
}

/** Only a 2xx is repeated: after an error the key is free for a corrected retry. */
export async function releaseIdempotencyKey(db: Kysely<DB>, clinicId: string, key: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('clinic_id', '=', clinicId).where('idempotency_key', '=', key).execute();
}

/** Retention: idempotency records live 24 hours. */
export async function purgeIdempotencyKeys(db: Kysely<DB>): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where(expired()).executeTakeFirst();
  return Number(result.numDeletedRows);
}

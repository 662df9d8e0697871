/**
 * The idempotency store (spec 4, 8): one row per (clinic, Idempotency-Key), owned by the first
 * request for 60 s (a lease another may take over when its holder died), then holding the 2xx
 * response for 24 hours. The rules are in src/db/IDEMPOTENCY.md; the HTTP hooks that use the
 * store are src/http/plugins/idempotency.ts.
 */
import { createHash } from 'node:crypto';
import { sql, type Kysely, type TransactionBuilder } from 'kysely';
import { WITH_BEGIN_MARK } from './pg-client.js';
import type { DB } from './schema.js';
import type { IdempotencyKeysTable } from './tables/core.js';

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
  /** The first request's work committed but its response was never recorded (rule 5): nothing to replay, nothing to run again. */
  | { kind: 'lost' }
  | { kind: 'replay'; statusCode: number; body: string; headers: Record<string, string> };

/** The key's row as a claim reads it; `owned` when the claim's own insert made it. */
interface ClaimRow {
  owned: boolean;
  api_key_id: string | null;
  operation: string | null;
  body_hash: string | null;
  state: IdempotencyKeysTable['state'] | null;
  locked_until: Date | null;
  created_at: Date | null;
  status_code: number | null;
  response_body: string | null;
  response_headers: Record<string, string> | null;
  response_not_stored: boolean | null;
  expired: boolean | null;
  lease_over: boolean | null;
}

/**
 * Takes the key for this request, or says why not (a few tries: rows come and go meanwhile).
 * One statement reads the key's row and inserts it only when there is none: a claim never waits
 * on the lock a running transaction of the key's work holds on its row (`keyedDb`), as an insert
 * meeting that row would; a takeover skips a locked row for the same reason.
 */
export async function claimIdempotencyKey(db: Kysely<DB>, claim: IdempotencyClaim): Promise<ClaimOutcome> {
  const { clinicId, key } = claim;
  for (let attempt = 0; attempt < 3; attempt++) {
    const { rows } = await sql<ClaimRow>`
      WITH found AS (
        SELECT api_key_id, operation, body_hash, state, locked_until, created_at, status_code, response_body, response_headers,
               response_not_stored, ${expired()} AS expired, locked_until < now() AS lease_over
        FROM idempotency_keys WHERE clinic_id = ${clinicId} AND idempotency_key = ${key}
      ), inserted AS (
        INSERT INTO idempotency_keys (clinic_id, idempotency_key, api_key_id, operation, body_hash, state, locked_until)
        SELECT ${clinicId}::uuid, ${key}, ${claim.apiKeyId}::uuid, ${claim.operation}, ${claim.bodyHash}, 'in_progress', ${new Date(Date.now() + LEASE_MS)}::timestamptz
        WHERE NOT EXISTS (SELECT 1 FROM found)
        ON CONFLICT (clinic_id, idempotency_key) DO NOTHING
        RETURNING 1
      )
      SELECT EXISTS (SELECT 1 FROM inserted) AS owned, found.* FROM (VALUES (1)) AS one (x) LEFT JOIN found ON true`.execute(db);
    const existing = rows[0]!;
    if (existing.owned) return { kind: 'owned' };
    if (existing.state === null) continue; // inserted or deleted meanwhile by another request: try again
    if (existing.expired) {
      await db
        .deleteFrom('idempotency_keys')
        .where('clinic_id', '=', clinicId)
        .where('idempotency_key', '=', key)
        .where('created_at', '=', existing.created_at!)
        .execute();
      continue;
    }
    // Another API key, operation or body is another request, whatever the first one's state (still
    // running, done, or not stored): its caller gets neither the first one's answer nor a wait.
    if (existing.api_key_id !== claim.apiKeyId || existing.operation !== claim.operation || existing.body_hash !== claim.bodyHash) {
      return { kind: 'reused' };
    }
    if (existing.state !== 'completed') {
      if (!existing.lease_over) return { kind: 'in_progress' };
      // Its work committed and its holder will record nothing more (it answered a 5xx, or died).
      if (existing.state === 'committed') return { kind: 'lost' };
      // Locked: a transaction of the first holder's work still runs (or its session is stuck).
      const taken = await sql`
        UPDATE idempotency_keys SET locked_until = ${new Date(Date.now() + LEASE_MS)}
        WHERE (clinic_id, idempotency_key) = (
          SELECT clinic_id, idempotency_key FROM idempotency_keys
          WHERE clinic_id = ${clinicId} AND idempotency_key = ${key} AND state = 'in_progress' AND locked_until = ${existing.locked_until}
          FOR UPDATE SKIP LOCKED)`.execute(db);
      return taken.numAffectedRows === 1n ? { kind: 'owned' } : { kind: 'in_progress' };
    }
    if (existing.response_not_stored) return { kind: 'not_stored' };
    return {
      kind: 'replay',
      statusCode: existing.status_code ?? 200,
      body: existing.response_body ?? '',
      headers: existing.response_headers ?? {},
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

/** Only a 2xx is repeated: after a refusal (4xx) the key is free for a corrected retry. */
export async function releaseIdempotencyKey(db: Kysely<DB>, clinicId: string, key: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('clinic_id', '=', clinicId).where('idempotency_key', '=', key).execute();
}

/** How long a settle waits for the row's lock (a transaction of the work still deciding) before it is tried again. */
const SETTLE_LOCK_TIMEOUT_MS = 500;

/**
 * After a 5xx (the database went away mid-request, a COMMIT whose answer was lost, a fault): the
 * key is freed only if none of its work committed; otherwise its lease ends, so that a retry is
 * answered `lost` at once and never runs the work again. The row's state is the work's own
 * record (`keyedDb`): a transaction still deciding holds the row's lock, and the DELETE waits for
 * it, then sees what it decided. It waits SETTLE_LOCK_TIMEOUT_MS at most (a session whose client
 * vanished may hold the lock until the server ends it) and then fails with `lock_not_available`,
 * to be tried again; the key stays taken meanwhile.
 */
export async function settleIdempotencyKey(db: Kysely<DB>, clinicId: string, key: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`SELECT set_config('lock_timeout', ${`${SETTLE_LOCK_TIMEOUT_MS}ms`}, true)`.execute(trx);
    await trx.deleteFrom('idempotency_keys').where('clinic_id', '=', clinicId).where('idempotency_key', '=', key).where('state', '=', 'in_progress').execute();
    await trx
      .updateTable('idempotency_keys')
      .set({ locked_until: sql<Date>`now() - interval '1 second'` })
      .where('clinic_id', '=', clinicId)
      .where('idempotency_key', '=', key)
      .where('state', '=', 'committed')
      .execute();
  });
}

/**
 * The database handle of a request that owns `key`: `db`, whose every read-write transaction
 * first marks the key `committed` (rule 5). The mark commits exactly when the work does, so the
 * row tells whether the work ran even when the answer of its COMMIT was lost. It takes the row's
 * lock from the transaction's first statement on: a settle (`settleIdempotencyKey`) waits for
 * the transaction to end rather than read the row while it may still commit. On PostgreSQL the
 * mark goes out with BEGIN and the transaction's next statement (WITH_BEGIN_MARK): no round trip.
 */
export function keyedDb(db: Kysely<DB>, clinicId: string, key: string): Kysely<DB> {
  const mark = sql`UPDATE idempotency_keys SET state = 'committed'
    WHERE clinic_id = ${clinicId} AND idempotency_key = ${key} AND state = 'in_progress' ${sql.raw(WITH_BEGIN_MARK)}`;
  const marking = (builder: TransactionBuilder<DB>, readOnly: boolean): TransactionBuilder<DB> =>
    ({
      setIsolationLevel: (level: Parameters<TransactionBuilder<DB>['setIsolationLevel']>[0]) => marking(builder.setIsolationLevel(level), readOnly),
      setAccessMode: (mode: Parameters<TransactionBuilder<DB>['setAccessMode']>[0]) => marking(builder.setAccessMode(mode), mode === 'read only'),
      execute: <T>(work: Parameters<TransactionBuilder<DB>['execute']>[0]) =>
        builder.execute(async (trx) => {
          // A read-only transaction commits nothing (and may not write the mark).
          if (!readOnly) await mark.execute(trx);
          return (work as (t: typeof trx) => Promise<T>)(trx);
        }),
    }) as unknown as TransactionBuilder<DB>;
  // Kysely keeps its state in private fields: every other member is the handle's own, bound to it.
  return new Proxy(db, {
    get(target, property) {
      if (property === 'transaction') return () => marking(target.transaction(), false);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The keys of the agent tools' writes begin so (src/modules/tool-calls): `tool:<call>:…`. */
export const TOOL_KEY_PREFIX = 'tool:';

/**
 * The newest key of a call's agent tool writes (`tool:<callPart>:…`) that counts as a write: its
 * work committed or its 2xx is recorded (a key still running, or freed by a 4xx, is none), within
 * its 24 hours. A query of (idempotency_key, at), for the call ledger's statement; found through
 * the index of migration 0138, whose predicate it repeats.
 */
export function newestToolKeyQuery(db: Kysely<DB>, clinicId: string, callPart: string) {
  return db
    .selectFrom('idempotency_keys')
    .select(['idempotency_key', 'created_at as at'])
    .where('clinic_id', '=', clinicId)
    .where(sql<string>`split_part(idempotency_key, ':', 2)`, '=', callPart)
    .where(sql<boolean>`idempotency_key LIKE ${sql.lit(`${TOOL_KEY_PREFIX}%`)}`)
    .where('state', '<>', 'in_progress')
    .where(sql<boolean>`NOT (${expired()})`)
    .orderBy('created_at', 'desc')
    .limit(1);
}

/** Retention: idempotency records live 24 hours. */
export async function purgeIdempotencyKeys(db: Kysely<DB>): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where(expired()).executeTakeFirst();
  return Number(result.numDeletedRows);
}

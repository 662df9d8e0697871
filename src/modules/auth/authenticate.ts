/**
 * Turns a bearer token into the caller's identity, or the error of spec 5.5.
 * Lookups are cached for at most one second, so revoking a key, switching a plan off or
 * suspending an organization takes effect within a second in every process.
 *
 * A clinic's switches (AI off, plan off) take effect at once: a cached lookup is also dropped
 * when any clinic row changes (the change feed's `clinics` token, 0070_voice_agent.sql), and
 * while the feed is not live an agent key's lookup is never served from the cache, so an
 * agent key is refused `ai_disabled` on the first request after the switch, in every process.
 */
import { LRUCache } from 'lru-cache';
import type { TenantScope } from '../../db/tenant.js';
import type { Db } from '../../db/transaction.js';
import { ApiError } from '../../core/errors.js';
import type { AuthContext } from '../../core/actor.js';
import { keyByTokenHash, touchKey } from './store.js';
import { hashToken, tokenKind } from './tokens.js';
import type { ChangeFeed, ChangeToken } from '../../db/change-feed.js';

interface KeyRecord {
  context: AuthContext;
  revoked: boolean;
  expiresAt: Date | null;
  planActive: boolean;
  suspended: boolean;
}

/**
 * A key we know, refused (revoked, replaced, expired, suspended, plan off): a final answer,
 * not a guess, so it is never counted against the client address (see http/plugins/caller.ts).
 */
export class KnownKeyRefused extends ApiError {
  constructor(
    code: 'api_key_revoked' | 'organization_suspended' | 'plan_required',
    readonly keyId: string,
  ) {
    super(code);
  }
}

const CACHE_TTL_MS = 1000;
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

export class Authenticator {
  /** Lookups by token hash, unknown tokens included, for at most a second; the least recently used go first. */
  readonly #cache = new LRUCache<string, { record: KeyRecord | null; clinics: ChangeToken | null }>({ max: 10_000, ttl: CACHE_TTL_MS });
  /**
   * Keys whose last use was written less than a minute ago. Sized like the lookup cache: an
   * LRUCache with a TTL allocates its arrays for `max` at once, and ten times as many entries
   * cost every start and CLI command ten times as long (docs/performance.md); a key pushed out
   * early only gets its last use written again a little sooner.
   */
  readonly #lastUsedWrites = new LRUCache<string, true>({ max: 10_000, ttl: LAST_USED_WRITE_INTERVAL_MS });

  constructor(
    private readonly db: Db,
    /** Clinic changes as they commit; without it, lookups are cached for the TTL alone. */
    private readonly changes: ChangeFeed | null = null,
  ) {}

  /** Forgets cached lookups (after a revocation in this process). */
  invalidate(): void {
    this.#cache.clear();
  }

  async authenticate(authorization: string | undefined, now = new Date()): Promise<AuthContext> {
    if (authorization === undefined || authorization.trim() === '') throw new ApiError('unauthenticated');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw new ApiError('api_key_invalid');
    const token = match[1]!;
    if (!tokenKind(token)) throw new ApiError('api_key_invalid');

    const record = await this.#lookup(hashToken(token));
    if (!record) throw new ApiError('api_key_invalid');
    if (record.revoked || (record.expiresAt && record.expiresAt.getTime() <= now.getTime())) {
      throw new KnownKeyRefused('api_key_revoked', record.context.keyId);
    }
    if (record.suspended) throw new KnownKeyRefused('organization_suspended', record.context.keyId);
    if (!record.planActive) throw new KnownKeyRefused('plan_required', record.context.keyId);
    this.#touch(record.context.keyId);
    return record.context;
  }

  async #lookup(tokenHash: string): Promise<KeyRecord | null> {
    const cached = this.#cache.get(tokenHash);
    if (cached && this.#fresh(cached)) return cached.record;
    // Read before the query: a clinic change committed meanwhile makes this lookup stale at once.
    const clinics = this.changes?.tableToken('clinics') ?? null;

    const row = await keyByTokenHash(this.db, tokenHash);

    const record: KeyRecord | null = row
      ? {
          context: {
            keyId: row.id,
            kind: row.kind,
            clinicId: row.clinic_id,
            organizationId: row.organization_id,
            testMode: row.mode === 'test',
            scopes: new Set(row.scopes),
            facilityIds: row.facility_ids ? row.facility_ids.map((id) => id.toLowerCase()) : null,
            aiEnabled: row.ai_enabled,
            timeZone: row.timezone,
            agent: row.agent,
          },
          revoked: row.revoked_at !== null,
          expiresAt: row.expires_at,
          planActive: row.plan_active,
          suspended: row.suspended_at !== null,
        }
      : null;
    this.#cache.set(tokenHash, { record, clinics });
    return record;
  }

  /** A cached lookup is served while no clinic changed since it was read (see the top of the file). */
  #fresh(cached: { record: KeyRecord | null; clinics: ChangeToken | null }): boolean {
    if (!this.changes || cached.record === null) return true;
    const now = this.changes.tableToken('clinics');
    if (now !== null) return now === cached.clinics;
    // The feed is down: plain keys keep the one-second cache; agent keys read the clinic every time.
    return cached.record.context.agent === 'none';
  }

  /** Records when a key was last used, at most once a minute per key and off the request path. */
  #touch(keyId: string): void {
    if (this.#lastUsedWrites.has(keyId)) return;
    this.#lastUsedWrites.set(keyId, true);
    touchKey(this.db, keyId).catch(() => {});
  }
}

/** 403 insufficient_scope listing exactly the scopes the key lacks. */
export function requireScopes(auth: Pick<AuthContext, 'scopes'>, scopes: readonly string[]): void {
  const missing = scopes.filter((s) => !auth.scopes.has(s));
  if (missing.length > 0) throw new ApiError('insufficient_scope', { requiredScopes: missing });
}

export function hasScope(auth: Pick<AuthContext, 'scopes'>, scope: string): boolean {
  return auth.scopes.has(scope);
}

/** Whether the key sees a row of this facility. Rows without a facility are seen only by unrestricted keys. */
export function seesFacility(scope: TenantScope, facilityId: string | null): boolean {
  if (scope.facilityIds === null) return true;
  return facilityId !== null && scope.facilityIds.includes(facilityId.toLowerCase());
}

/**
 * Fixed-window rate limiting over several windows at once (spec 8).
 *
 * A request is admitted only if every window has room, and only an admitted request is
 * counted: a 429 consumes nothing. The check and the count are one atomic step (a Lua
 * script on Redis, synchronous code in memory), which rate-limiter-flexible cannot do
 * across several windows without counting refused requests.
 *
 * Windows are aligned to the epoch (10-second windows start on multiples of 10 s; day
 * windows at 00:00 UTC), so every process computes the same window and reset time.
 */
import type { Redis } from 'ioredis';

export interface WindowRule {
  /** Counter name, e.g. `key:<id>:10s`. */
  name: string;
  limit: number;
  /** Window length in seconds (86400 = the UTC day). */
  seconds: number;
}

export interface WindowState {
  limit: number;
  remaining: number;
  /** Epoch seconds when the window ends. */
  resetAt: number;
}

export interface Decision {
  allowed: boolean;
  /** The tightest window: the fewest requests left (ties: the one that resets first). */
  tightest: WindowState;
  /** Seconds until the refusing window ends (only when refused). */
  retryAfter: number;
}

export interface CounterStore {
  /** Counts one request in every window if all have room; returns the counts seen. */
  hit(keys: string[], limits: number[], ttlSeconds: number[]): Promise<{ allowed: boolean; counts: number[] }>;
  close(): Promise<void>;
}

export class RateLimiter {
  constructor(private readonly store: CounterStore) {}

  async check(rules: WindowRule[], nowMs = Date.now()): Promise<Decision> {
    const nowSec = Math.floor(nowMs / 1000);
    const windows = rules.map((rule) => {
      const start = Math.floor(nowSec / rule.seconds) * rule.seconds;
      return { rule, resetAt: start + rule.seconds, key: `rl:${rule.name}:${start}` };
    });
    const { allowed, counts } = await this.store.hit(
      windows.map((w) => w.key),
      rules.map((r) => r.limit),
      windows.map((w) => w.resetAt - nowSec + 1),
    );
    const states = windows.map((w, i) => ({
      limit: w.rule.limit,
      remaining: Math.max(0, w.rule.limit - counts[i]!),
      resetAt: w.resetAt,
    }));
    const tightest = states.reduce((a, b) =>
      b.remaining < a.remaining || (b.remaining === a.remaining && b.resetAt < a.resetAt) ? b : a,
    );
    let retryAfter = 0;
    if (!allowed) {
      const full = states.filter((s) => s.remaining === 0);
      retryAfter = Math.max(1, Math.max(...full.map((s) => s.resetAt)) - nowSec);
    }
    return { allowed, tightest, retryAfter };
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

export class MemoryCounterStore implements CounterStore {
  readonly #counters = new Map<string, { count: number; expiresAt: number }>();
  #lastSweep = 0;

  async hit(keys: string[], limits: number[], ttlSeconds: number[]) {
    const now = Date.now();
    this.#sweep(now);
    const counts = keys.map((k) => {
      const c = this.#counters.get(k);
      return c && c.expiresAt > now ? c.count : 0;
    });
    const allowed = counts.every((c, i) => c < limits[i]!);
    if (allowed) {
      keys.forEach((k, i) => {
        counts[i]! += 1;
        this.#counters.set(k, { count: counts[i]!, expiresAt: now + ttlSeconds[i]! * 1000 });
      });
    }
    return { allowed, counts };
  }

  #sweep(now: number): void {
    if (now - this.#lastSweep < 10_000) return;
    this.#lastSweep = now;
    for (const [k, c] of this.#counters) if (c.expiresAt <= now) this.#counters.delete(k);
  }

  async close() {}
}

// KEYS: counters; ARGV: limits..., ttls... . Returns {allowed, count1, count2, ...}.
const HIT_SCRIPT = `
local n = #KEYS
local counts = {}
local allowed = 1
for i = 1, n do
  local c = tonumber(redis.call('GET', KEYS[i]) or '0')
  counts[i] = c
  if c >= tonumber(ARGV[i]) then allowed = 0 end
end
if allowed == 1 then
  for i = 1, n do
    counts[i] = redis.call('INCR', KEYS[i])
    if counts[i] == 1 then redis.call('EXPIRE', KEYS[i], tonumber(ARGV[n + i])) end
  end
end
table.insert(counts, 1, allowed)
return counts
`;

export class RedisCounterStore implements CounterStore {
  constructor(private readonly redis: Redis) {}

  async hit(keys: string[], limits: number[], ttlSeconds: number[]) {
    const result = (await this.redis.eval(HIT_SCRIPT, keys.length, ...keys, ...limits, ...ttlSeconds)) as number[];
    return { allowed: result[0] === 1, counts: result.slice(1).map(Number) };
  }

  async close() {
    this.redis.disconnect();
  }
}

export interface RateLimits {
  clinicPer10s: number;
  clinicPerDay: number;
  keyPer10s: number;
  keyPerDay: number;
  /** Failed authentications per client address per minute. */
  authFailuresPerMinute: number;
}

/** Spec 8. */
export const SPEC_RATE_LIMITS: RateLimits = {
  clinicPer10s: 100,
  clinicPerDay: 20_000,
  keyPer10s: 60,
  keyPerDay: 12_000,
  authFailuresPerMinute: 30,
};

export function keyRules(limits: RateLimits, keyId: string): WindowRule[] {
  return [
    { name: `key:${keyId}:10s`, limit: limits.keyPer10s, seconds: 10 },
    { name: `key:${keyId}:day`, limit: limits.keyPerDay, seconds: 86_400 },
  ];
}

export function callerRules(limits: RateLimits, clinicId: string, keyId: string): WindowRule[] {
  return [
    ...keyRules(limits, keyId),
    { name: `clinic:${clinicId}:10s`, limit: limits.clinicPer10s, seconds: 10 },
    { name: `clinic:${clinicId}:day`, limit: limits.clinicPerDay, seconds: 86_400 },
  ];
}

export function authFailureRules(limits: RateLimits, address: string): WindowRule[] {
  return [{ name: `authfail:${address}:60s`, limit: limits.authFailuresPerMinute, seconds: 60 }];
}

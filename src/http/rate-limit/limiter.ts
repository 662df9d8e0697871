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
import { DependencyUnavailableError } from '../../lib/unavailable.js';

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

/** One window's state, named by its rule (`key:<id>:10s`, `clinic:<id>:day`). */
export interface RateWindowState extends WindowState {
  name: string;
  seconds: number;
}

export interface Decision {
  allowed: boolean;
  /** Every window, in the order of the rules. */
  windows: RateWindowState[];
  /** The tightest window: the fewest requests left (ties: the one that resets first). */
  tightest: WindowState;
  /** Seconds until the refusing window ends (only when refused). */
  retryAfter: number;
}

interface CounterStore {
  /** Counts one request in every window if all have room; returns the counts seen. */
  hit(keys: string[], limits: number[], ttlSeconds: number[]): Promise<{ allowed: boolean; counts: number[] }>;
  /** Resolves if the store answers; throws DependencyUnavailableError otherwise (readiness). */
  ping(): Promise<void>;
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
    const tightest = states.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.resetAt < a.resetAt) ? b : a));
    let retryAfter = 0;
    if (!allowed) {
      const full = states.filter((s) => s.remaining === 0);
      retryAfter = Math.max(1, Math.max(...full.map((s) => s.resetAt)) - nowSec);
    }
    return { allowed, tightest, retryAfter, windows: states.map((s, i) => ({ ...s, name: rules[i]!.name, seconds: rules[i]!.seconds })) };
  }

  /** Throws DependencyUnavailableError when the counters cannot be reached (readiness). */
  ping(): Promise<void> {
    return this.store.ping();
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

  async ping() {}

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

/**
 * Counters in Redis, shared by every process. When Redis does not answer, a request is not
 * admitted: `hit` throws DependencyUnavailableError (503 unavailable with Retry-After), it does
 * not fall back to counting in this process. The limits are the contract's (spec 8): with N
 * processes each counting alone a clinic would get N times its budget, and each process would
 * start from zero at every outage; refusing for the few seconds Redis is away keeps the limits
 * true and the readiness probe takes the process out of the balancer meanwhile.
 */
export class RedisCounterStore implements CounterStore {
  constructor(private readonly redis: Redis) {}

  async hit(keys: string[], limits: number[], ttlSeconds: number[]) {
    let result: number[];
    try {
      result = (await this.redis.eval(HIT_SCRIPT, keys.length, ...keys, ...limits, ...ttlSeconds)) as number[];
    } catch (error) {
      throw new DependencyUnavailableError('redis', error);
    }
    return { allowed: result[0] === 1, counts: result.slice(1).map(Number) };
  }

  async ping() {
    try {
      await this.redis.ping();
    } catch (error) {
      throw new DependencyUnavailableError('redis', error);
    }
  }

  async close() {
    this.redis.disconnect();
  }
}

interface RedisEvents {
  /** The connection is up (again). */
  onUp(): void;
  /** The connection was lost or could not be made: once per outage, with its first error. */
  onDown(error: unknown): void;
}

/** How long one Redis command may take before the request is answered 503. */
const REDIS_COMMAND_TIMEOUT_MS = 500;

/**
 * A Redis client that fails fast instead of waiting: a command while disconnected is refused at
 * once (no offline queue), a command without an answer fails after REDIS_COMMAND_TIMEOUT_MS, and
 * a request answered 503 is never counted later (no resending after a reconnect). It reconnects
 * by itself every 0.1-1 s, and every `error` event is handled (reported once per outage).
 * ioredis is loaded only by a process with REDIS_URL (start-up time).
 */
export async function connectRedis(url: string, events: RedisEvents): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(100 * attempt, 1_000),
  });
  let up = false;
  let reported = false;
  const down = (error: unknown) => {
    up = false;
    if (reported) return;
    reported = true;
    events.onDown(error);
  };
  redis.on('ready', () => {
    if (up) return;
    up = true;
    reported = false;
    events.onUp();
  });
  redis.on('close', () => {
    if (up) down(new Error('the connection to Redis closed'));
  });
  redis.on('error', down);
  return redis;
}

export interface RateLimits {
  clinicPer10s: number;
  clinicPerDay: number;
  keyPer10s: number;
  keyPerDay: number;
  /** Failed authentications per client address per minute. */
  authFailuresPerMinute: number;
  /** Requests to the files plane (upload and download links) per client address per minute; FILES_PER_MINUTE when absent. */
  filesPerMinute?: number;
  /** MCP and Vapi messages (not the tool calls they carry) per key per 10 s; AGENT_MESSAGES_PER_10S when absent. */
  agentMessagesPer10s?: number;
}

/** The files plane's budget per client address: a link is used once, so an integration needs few. */
export const FILES_PER_MINUTE = 120;

export function filesRules(limits: RateLimits, address: string): WindowRule[] {
  return [{ name: `files:${address}:60s`, limit: limits.filesPerMinute ?? FILES_PER_MINUTE, seconds: 60 }];
}

/**
 * The agents' messages per key per 10 s (`/mcp`, `/v1/agent-tools/vapi`): several per tool call when
 * a platform opens a new MCP connection for each (initialize, the initialized notification, the
 * call). The tool calls they carry are counted as the operations they perform, in the key's and
 * the clinic's windows.
 */
const AGENT_MESSAGES_PER_10S = 600;

export function agentMessageRules(limits: RateLimits, keyId: string): WindowRule[] {
  return [{ name: `mcp:${keyId}:10s`, limit: limits.agentMessagesPer10s ?? AGENT_MESSAGES_PER_10S, seconds: 10 }];
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

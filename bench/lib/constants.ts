import type { RateLimits } from '../../src/http/rate-limit/limiter.js';

/** The bare route of the benchmarks: no auth, no database, the same bytes as GET /facilities/{id}. */
export const CEILING_PATH = '/bench/ceiling';

/**
 * Rate limits far above the spec's (60 per 10 s per key): the benchmarks measure the service,
 * not the limiter's refusals. The limiter still runs on every request.
 */
export const BENCH_LIMITS: RateLimits = {
  clinicPer10s: 1_000_000_000,
  clinicPerDay: 1_000_000_000,
  keyPer10s: 1_000_000_000,
  keyPerDay: 1_000_000_000,
  authFailuresPerMinute: 1_000_000_000,
  filesPerMinute: 1_000_000_000,
  agentMessagesPer10s: 1_000_000_000,
};

/** Retry schedule of spec 6.7 and the limits of spec 8 that the worker enforces. */

/** Wait after failed attempt n (1-based) before attempt n+1: 1 min, 5 min, 15 min, 1 h. */
export const RETRY_WAITS_MS = [60_000, 300_000, 900_000, 3_600_000];
export const MAX_IN_FLIGHT_PER_CLINIC = 5;
export const DISABLE_AFTER_DISCARDED = 50;
export const MAX_REDELIVERIES = 3;

/** The wait after failed attempt `attempt`, ±10% jitter, multiplied by `scale` (tests shrink it). */
export function retryDelayMs(attempt: number, scale: number, random: () => number = Math.random): number {
  const base = RETRY_WAITS_MS[Math.min(Math.max(attempt, 1), RETRY_WAITS_MS.length) - 1]!;
  const jitter = 0.9 + 0.2 * random();
  return Math.round(base * jitter * scale);
}

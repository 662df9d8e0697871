/** The waits of spec 6.7 between attempts, with their ±10% jitter, at the real scale. */
import { describe, expect, it } from 'vitest';
import { RETRY_WAITS_MS, retryDelayMs } from '../../src/webhooks/schedule.js';

describe('retry waits (spec 6.7)', () => {
  it('are 1 min, 5 min, 15 min and 1 h after failed attempts 1 to 4', () => {
    expect(RETRY_WAITS_MS).toEqual([60_000, 300_000, 900_000, 3_600_000]);
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 1, () => 0.5))).toEqual(RETRY_WAITS_MS);
  });

  it('vary by 10% at most either way, and reach both ends', () => {
    RETRY_WAITS_MS.forEach((base, i) => {
      expect(retryDelayMs(i + 1, 1, () => 0)).toBe(base * 0.9);
      expect(retryDelayMs(i + 1, 1, () => 0.999999)).toBeCloseTo(base * 1.1, -1);
      for (let k = 0; k < 200; k++) {
        const wait = retryDelayMs(i + 1, 1);
        expect(wait).toBeGreaterThanOrEqual(base * 0.9);
        expect(wait).toBeLessThanOrEqual(base * 1.1);
      }
    });
    // Two deliveries failing together do not retry together.
    expect(new Set(Array.from({ length: 50 }, () => retryDelayMs(1, 1))).size).toBeGreaterThan(10);
  });

  it('scale down for tests', () => {
    expect(retryDelayMs(4, 0.001, () => 0.5)).toBe(3_600);
  });
});

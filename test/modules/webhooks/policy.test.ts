/** The delivery policy (src/modules/webhooks/policy.ts): the waits of spec 6.7 with their jitter, discarding, switching a destination off. */
import { describe, expect, it } from 'vitest';
import { attemptOutcome, destinationAfter, DISABLE_AFTER_DISCARDED, RETRY_WAITS_MS, retryDelayMs } from '../../../src/modules/webhooks/policy.js';

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

describe("an attempt's outcome", () => {
  const delivery = (attempt_count: number, redeliveries = 0) => ({ attempt_count, attempt_limit: 5, redeliveries });

  it("succeeds, retries until the fifth failure, then discards; only a scheduled delivery's discard counts", () => {
    expect(attemptOutcome(delivery(0), true)).toEqual({ number: 1, status: 'succeeded', countsAsDiscard: false });
    expect(attemptOutcome(delivery(3), false)).toEqual({ number: 4, status: 'pending', countsAsDiscard: false });
    expect(attemptOutcome(delivery(4), false)).toEqual({ number: 5, status: 'discarded', countsAsDiscard: true });
    // A manual redelivery raised the limit by one: its failure discards again but counts nothing.
    expect(attemptOutcome({ attempt_count: 5, attempt_limit: 6, redeliveries: 1 }, false)).toEqual({ number: 6, status: 'discarded', countsAsDiscard: false });
  });
});

describe('switching a destination off (spec 8: 50 discarded deliveries in a row)', () => {
  const discard = { status: 'discarded', countsAsDiscard: true } as const;
  const success = { status: 'succeeded', countsAsDiscard: false } as const;
  const retry = { status: 'pending', countsAsDiscard: false } as const;
  const healthy = { consecutiveDiscarded: 0, enabled: true, disabledReason: null };

  it('switches off at the 50th discard in a row, not at the 49th', () => {
    expect(DISABLE_AFTER_DISCARDED).toBe(50);
    expect(destinationAfter(healthy, Array(49).fill(discard))).toEqual({ consecutiveDiscarded: 49, enabled: true, disabledReason: null });
    expect(destinationAfter(healthy, Array(50).fill(discard))).toEqual({ consecutiveDiscarded: 50, enabled: false, disabledReason: 'too_many_failures' });
  });

  it('applies outcomes in order: a success resets the count, but not a switch-off already made', () => {
    expect(destinationAfter({ ...healthy, consecutiveDiscarded: 48 }, [discard, discard, success, discard])).toEqual({
      consecutiveDiscarded: 1,
      enabled: false,
      disabledReason: 'too_many_failures',
    });
    expect(destinationAfter({ ...healthy, consecutiveDiscarded: 49 }, [success, discard])).toEqual({
      consecutiveDiscarded: 1,
      enabled: true,
      disabledReason: null,
    });
  });

  it('a retry scheduled counts nothing, and a destination already off keeps its reason', () => {
    expect(destinationAfter({ ...healthy, consecutiveDiscarded: 49 }, [retry, retry])).toEqual({ ...healthy, consecutiveDiscarded: 49 });
    const off = { consecutiveDiscarded: 70, enabled: false, disabledReason: 'manual' };
    expect(destinationAfter(off, [discard])).toEqual({ ...off, consecutiveDiscarded: 71 });
  });
});

/**
 * What the outcome of an attempt does to its delivery and to its destination (spec 6.7, 8):
 * the retry schedule, discarding after the last attempt, and switching a destination off
 * after `DISABLE_AFTER_DISCARDED` discarded deliveries in a row. Pure functions: the worker's
 * one statement per batch (`worker/outcome-store.ts`) applies the same rules in SQL, and
 * test/modules/webhooks/rounds.test.ts checks the SQL against `destinationAfter`.
 */

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

interface AttemptOutcome {
  /** The attempt's number (1-based). */
  number: number;
  status: 'succeeded' | 'pending' | 'discarded';
  /**
   * A discard that counts towards switching the destination off: the delivery's scheduled
   * life ended in failure. A failed manual redelivery does not count.
   */
  countsAsDiscard: boolean;
}

/** The delivery after an attempt: succeeded, discarded after its last allowed attempt, or pending a retry. */
export function attemptOutcome(delivery: { attempt_count: number; attempt_limit: number; redeliveries: number }, success: boolean): AttemptOutcome {
  const number = delivery.attempt_count + 1;
  const final = !success && number >= delivery.attempt_limit;
  return {
    number,
    status: success ? 'succeeded' : final ? 'discarded' : 'pending',
    countsAsDiscard: final && delivery.redeliveries === 0,
  };
}

interface DestinationHealth {
  consecutiveDiscarded: number;
  enabled: boolean;
  disabledReason: string | null;
}

/**
 * A destination after a batch of its outcomes, applied one by one in the order the attempts
 * finished: a success resets the count, a counted discard adds one, and the destination is
 * switched off (reason `too_many_failures`) when a discard brings the count to the threshold.
 * Outcomes that are neither (a retry scheduled, an uncounted discard) change nothing.
 */
export function destinationAfter(
  start: DestinationHealth,
  outcomes: ReadonlyArray<Pick<AttemptOutcome, 'status' | 'countsAsDiscard'>>,
  threshold = DISABLE_AFTER_DISCARDED,
): DestinationHealth {
  let { consecutiveDiscarded, enabled, disabledReason } = start;
  for (const outcome of outcomes) {
    if (outcome.status === 'succeeded') consecutiveDiscarded = 0;
    else if (outcome.countsAsDiscard) {
      consecutiveDiscarded += 1;
      if (consecutiveDiscarded >= threshold && enabled) {
        enabled = false;
        disabledReason = 'too_many_failures';
      }
    }
  }
  return { consecutiveDiscarded, enabled, disabledReason };
}

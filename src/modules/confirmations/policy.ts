/** When to ask a patient to confirm, and when the next attempt is allowed: pure rules over the clinic's confirmation rules. */
import type { ConfirmationStep } from '../../db/tables/confirmations.js';
import { afterQuietHours } from '../../lib/quiet-hours.js';

const HOUR_MS = 3_600_000;

/**
 * The longest a step can ask ahead of a start (an upper bound, for the index range of the
 * list): hours before, or the days before plus the day itself (a start late in its local day)
 * and an hour for a change of summer time.
 */
export function maxLeadMs(steps: readonly ConfirmationStep[]): number {
  return Math.max(...steps.map((s) => ('hoursBefore' in s ? s.hoursBefore : (s.daysBefore + 1) * 24 + 1) * HOUR_MS));
}

/**
 * The first instant an attempt is allowed: not before the first asking time, nor before
 * `retryAfterMinutes` after the last attempt, nor before `now`; then past the quiet hours.
 */
export function nextAttemptAt(
  now: Date,
  tz: string,
  rules: { retryAfterMinutes: number; quietStart: string; quietEnd: string },
  firstAskAt: Date,
  lastAttemptAt: Date | null,
): Date {
  let t = Math.max(now.getTime(), firstAskAt.getTime());
  if (lastAttemptAt) t = Math.max(t, lastAttemptAt.getTime() + rules.retryAfterMinutes * 60_000);
  return afterQuietHours(new Date(t), tz, rules.quietStart, rules.quietEnd);
}

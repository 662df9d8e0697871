/** When a due patient may be contacted next: the weekly limit and the quiet hours, as one pure rule. */
import { afterQuietHours } from '../../lib/quiet-hours.js';

const WEEK_MS = 7 * 86_400_000;

/**
 * The first instant from `now` at which an attempt is allowed: once fewer than `maxPerWeek`
 * attempts fall in the 7 days before it (`recent`: the attempts of the last 7 days, any order),
 * and outside the quiet hours `quietStart`-`quietEnd` (src/lib/quiet-hours.ts).
 */
export function nextAttemptAt(
  now: Date,
  tz: string,
  rules: { maxAttemptsPerWeek: number; quietStart: string; quietEnd: string },
  recent: readonly Date[],
): Date {
  let t = now.getTime();
  const sorted = recent.map((d) => d.getTime()).sort((a, b) => a - b);
  if (sorted.length >= rules.maxAttemptsPerWeek) t = Math.max(t, sorted[sorted.length - rules.maxAttemptsPerWeek]! + WEEK_MS);
  return afterQuietHours(new Date(t), tz, rules.quietStart, rules.quietEnd);
}

/** When a due patient may be contacted next: the weekly limit and the quiet hours, as one pure rule. */
import { localParts, localToUtc } from '../../lib/time-zone.js';

const WEEK_MS = 7 * 86_400_000;
const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * The first instant from `now` at which an attempt is allowed: once fewer than `maxPerWeek`
 * attempts fall in the 7 days before it (`recent`: the attempts of the last 7 days, any order),
 * and outside the quiet hours `quietStart`-`quietEnd` (local times; a span over midnight when
 * the start is later than the end; none when equal).
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
  const [start, end] = [minutes(rules.quietStart), minutes(rules.quietEnd)];
  if (start === end) return new Date(t);
  const local = localParts(new Date(t), tz);
  const m = local.hour * 60 + local.minute;
  const quiet = start < end ? m >= start && m < end : m >= start || m < end;
  if (!quiet) return new Date(t);
  // The quiet hours end today when it is before their end, else tomorrow.
  const day = m < end ? local.day : local.day + 1;
  return localToUtc(local.year, local.month, day, end, tz);
}

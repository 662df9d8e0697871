/**
 * The quiet hours of automatic contact (recalls, confirmations): local times of the clinic
 * between which nobody is called or written to, one rule for every outbound list.
 */
import { Type } from 'typebox';
import { localParts, localToUtc } from './time-zone.js';

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** A local time of day `HH:MM` (00:00-23:59). */
export const LocalTimeOfDay = (description: string, example = '20:00') =>
  Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description, examples: [example] });

/**
 * `at`, or the end of the quiet hours `quietStart`-`quietEnd` when `at` falls in them (local
 * times; a span over midnight when the start is later than the end; none when equal).
 */
export function afterQuietHours(at: Date, tz: string, quietStart: string, quietEnd: string): Date {
  const [start, end] = [minutes(quietStart), minutes(quietEnd)];
  if (start === end) return at;
  const local = localParts(at, tz);
  const m = local.hour * 60 + local.minute;
  const quiet = start < end ? m >= start && m < end : m >= start || m < end;
  if (!quiet) return at;
  // The quiet hours end today when it is before their end, else tomorrow.
  const day = m < end ? local.day : local.day + 1;
  return localToUtc(local.year, local.month, day, end, tz);
}

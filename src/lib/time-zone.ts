/**
 * Local wall-clock time of an IANA timezone to UTC and back, with Intl only.
 *
 * Kept ours for a measured reason: availability converts every slot of a window, and Luxon 3
 * did the same work one and a half to two times slower (docs/performance.md); DST gaps and
 * overlaps are covered by test/modules/calendars/timezone.test.ts. 50 lines; revisit with Temporal.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** en-US with those options prints `MM/DD/YYYY, HH:MM:SS`. */
const PRINTED = /^(\d{2})\/(\d{2})\/(\d{4}), (\d{2}):(\d{2}):(\d{2})$/;

/**
 * The local calendar date and time of an instant in `tz`. Read from format()'s text, which costs
 * a fraction of formatToParts (docs/performance.md): every
 * time an API answer reads out (local-reading.ts) pays it once per row; formatToParts for any other text.
 */
export function localParts(date: Date, tz: string): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  const printed = PRINTED.exec(formatter(tz).format(date));
  if (printed) {
    const [, month, day, year, hour, minute, second] = printed.map(Number) as number[];
    return { year: year!, month: month!, day: day!, hour: hour! % 24, minute: minute!, second: second! };
  }
  const parts: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(date)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour! % 24, minute: parts.minute!, second: parts.second! };
}

function offsetMs(date: Date, tz: string): number {
  const p = localParts(date, tz);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - (date.getTime() - date.getUTCMilliseconds());
}

/** The instant of local date `y-m-d` at `minutes` after local midnight in `tz`. */
export function localToUtc(year: number, month: number, day: number, minutes: number, tz: string): Date {
  const guess = Date.UTC(year, month - 1, day, 0, minutes);
  const first = offsetMs(new Date(guess), tz);
  let t = guess - first;
  const second = offsetMs(new Date(t), tz);
  if (second !== first) t = guess - second;
  return new Date(t);
}

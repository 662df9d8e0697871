/**
 * The weekly working schedule of a facility or a calendar (our structure; spec 2.11 leaves it
 * open): `{ "mon": [{ "open": "09:00", "close": "13:00" }, { "open": "14:00", "close": "18:00" }], ... }`.
 * Keys are `mon`..`sun` (a missing day is closed); each interval is `HH:MM` local time of the
 * clinic's timezone, `open` before `close`, intervals of a day in order and not overlapping.
 */
import { Type } from 'typebox';
import type { ValidationIssue } from '../../core/errors.js';
import { list, record } from '../../lib/loose.js';

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

const HHMM = '^([01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$';
const Interval = Type.Object(
  { open: Type.String({ pattern: HHMM, description: '`HH:MM`' }), close: Type.String({ pattern: HHMM, description: '`HH:MM` (`24:00` = midnight)' }) },
  { additionalProperties: false },
);
const Day = Type.Array(Interval, { maxItems: 6 });

export const WeekScheduleSchema = Type.Object(
  {
    mon: Type.Optional(Day),
    tue: Type.Optional(Day),
    wed: Type.Optional(Day),
    thu: Type.Optional(Day),
    fri: Type.Optional(Day),
    sat: Type.Optional(Day),
    sun: Type.Optional(Day),
  },
  {
    additionalProperties: false,
    description:
      'Weekly hours: keys `mon`..`sun` (missing = closed), each a list of `{open, close}` intervals in `HH:MM` local time of the clinic’s timezone, in order and not overlapping',
    examples: [
      {
        mon: [
          { open: '09:00', close: '13:00' },
          { open: '14:00', close: '18:00' },
        ],
      },
    ],
  },
);

export function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return h! * 60 + m!;
}

/**
 * Checks what the schema cannot: open before close, intervals in order without overlap. Reads
 * the schedule as `unknown` (a body its schema refused, see src/lib/loose.ts): an interval
 * without two `HH:MM` times is the schema's to name, and skipped here.
 */
export function scheduleIssues(schedule: unknown, path: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const [day, intervals] of Object.entries(record(schedule))) {
    let lastClose = -1;
    list(intervals).forEach((raw, i) => {
      const interval = record(raw);
      if (!isHhmm(interval.open) || !isHhmm(interval.close)) return;
      const open = minutesOf(interval.open);
      const close = minutesOf(interval.close);
      if (open >= close) issues.push({ path: `${path}.${day}.${i}.close`, message: 'deve essere successivo a open' });
      else if (open < lastClose) issues.push({ path: `${path}.${day}.${i}.open`, message: 'gli intervalli devono essere in ordine e non sovrapposti' });
      lastClose = Math.max(lastClose, close);
    });
  }
  return issues;
}

const isHhmm = (v: unknown): v is string => typeof v === 'string' && new RegExp(HHMM).test(v);

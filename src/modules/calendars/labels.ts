/**
 * Slots as a voice agent says them (issue 15): the local date and time in the clinic's zone,
 * the part of the day, and a short Italian phrase ("martedì 4 marzo alle 9:30").
 */
import { localParts } from './timezone.js';

export const PARTS_OF_DAY = ['morning', 'afternoon', 'evening'] as const;
export type PartOfDay = (typeof PARTS_OF_DAY)[number];

export interface SlotWords {
  /** `YYYY-MM-DD` in the clinic's time zone. */
  localDate: string;
  /** `HH:MM` in the clinic's time zone. */
  localTime: string;
  /** morning before 13:00, afternoon before 18:00, evening after. */
  partOfDay: PartOfDay;
  label: string;
}

const dayFormatters = new Map<string, Intl.DateTimeFormat>();

function dayFormatter(tz: string): Intl.DateTimeFormat {
  let f = dayFormatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('it-IT', { timeZone: tz, weekday: 'long', day: 'numeric', month: 'long' });
    dayFormatters.set(tz, f);
  }
  return f;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** "alle 9:30", "all’1:00" (Italian elides before "una"). */
function atTime(hour: number, minute: number): string {
  return `${hour === 1 ? 'all’' : 'alle '}${hour}:${pad(minute)}`;
}

type LocalParts = ReturnType<typeof localParts>;

export const localDateOf = (p: LocalParts) => `${p.year}-${pad(p.month)}-${pad(p.day)}`;
export const partOfDayOf = (p: LocalParts): PartOfDay => (p.hour < 13 ? 'morning' : p.hour < 18 ? 'afternoon' : 'evening');

/** `parts`: the instant's local parts when the caller has them already (they cost an Intl call). */
export function slotWords(start: Date, tz: string, parts: LocalParts = localParts(start, tz)): SlotWords {
  return {
    localDate: localDateOf(parts),
    localTime: `${pad(parts.hour)}:${pad(parts.minute)}`,
    partOfDay: partOfDayOf(parts),
    label: `${dayFormatter(tz).format(start)} ${atTime(parts.hour, parts.minute)}`,
  };
}

/**
 * Times as an agent says them: the local date and time in the clinic's zone, the part
 * of the day, and a short Italian phrase ("martedì 4 marzo alle 9:30"). Slots, appointments,
 * holds, waitlist offers and entries, recalls and the caller context all read a time out through
 * localReading, so an agent never converts a UTC instant itself.
 */
import { Type } from 'typebox';
import { Nullable } from '../core/schemas.js';
import { localParts } from './time-zone.js';

export const PARTS_OF_DAY = ['morning', 'afternoon', 'evening'] as const;
export type PartOfDay = (typeof PARTS_OF_DAY)[number];

/** An instant read in the clinic's zone. */
interface LocalReading {
  /** `YYYY-MM-DD` in the clinic's time zone. */
  localDate: string;
  /** `HH:MM` in the clinic's time zone. */
  localTime: string;
  /** In Italian words, to be read out: "martedì 4 marzo alle 9:30". */
  label: string;
}

export interface SlotWords extends LocalReading {
  /** morning before 13:00, afternoon before 18:00, evening after. */
  partOfDay: PartOfDay;
}

/*
 * The words are Intl's it-IT ones (weekday long, day numeric, month long: "martedì 4 marzo";
 * test/lib/local-reading.test.ts compares every day of a year), written out: the day of
 * the week of a local date is arithmetic, and a second Intl call per time was half of a label's
 * cost (about 10 µs), paid per row by a page of 200 appointments.
 */
const WEEKDAYS = ['domenica', 'lunedì', 'martedì', 'mercoledì', 'giovedì', 'venerdì', 'sabato'];
const MONTHS = ['gennaio', 'febbraio', 'marzo', 'aprile', 'maggio', 'giugno', 'luglio', 'agosto', 'settembre', 'ottobre', 'novembre', 'dicembre'];

const pad = (n: number) => String(n).padStart(2, '0');

/** "alle 9:30", "all’1:00" (Italian elides before "una"). */
function atTime(hour: number, minute: number): string {
  return `${hour === 1 ? 'all’' : 'alle '}${hour}:${pad(minute)}`;
}

type LocalParts = ReturnType<typeof localParts>;

export const localDateOf = (p: LocalParts) => `${p.year}-${pad(p.month)}-${pad(p.day)}`;
export const partOfDayOf = (p: LocalParts): PartOfDay => (p.hour < 13 ? 'morning' : p.hour < 18 ? 'afternoon' : 'evening');

/** "martedì 4 marzo": the local date in words. */
function dayWords(p: LocalParts): string {
  return `${WEEKDAYS[new Date(Date.UTC(p.year, p.month - 1, p.day)).getUTCDay()]} ${p.day} ${MONTHS[p.month - 1]}`;
}

const HOUR_MS = 3_600_000;
/** Per zone: the offset of each UTC hour the zone does not change in (a page of 200 rows spans few). */
const hourOffsets = new Map<string, Map<number, number | null>>();

/** The zone's offset at the start of UTC hour `hour` (ms since the epoch / HOUR_MS). */
function offsetAtHour(hour: number, tz: string): number {
  const p = localParts(new Date(hour * HOUR_MS), tz);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - hour * HOUR_MS;
}

/**
 * The local parts of an instant, without Intl for an hour already met: an hour whose start and
 * end have the same offset has it throughout (a zone changes its offset at most once in an
 * hour), so its instants are shifted by it; an hour with a change is read by Intl each time.
 * A list of 200 appointments read out cost 200 Intl calls (3-4 µs each), now one per hour met.
 */
function readingParts(at: Date, tz: string): LocalParts {
  const t = at.getTime();
  const hour = Math.floor(t / HOUR_MS);
  let zone = hourOffsets.get(tz);
  if (!zone) hourOffsets.set(tz, (zone = new Map()));
  let offset = zone.get(hour);
  if (offset === undefined) {
    const start = offsetAtHour(hour, tz);
    offset = start === offsetAtHour(hour + 1, tz) ? start : null;
    // A bound on memory: a process meets a few thousand hours per zone in a day of lists.
    if (zone.size >= 50_000) zone.clear();
    zone.set(hour, offset);
  }
  if (offset === null || !Number.isFinite(t)) return localParts(at, tz);
  const local = new Date(t + offset);
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    second: local.getUTCSeconds(),
  };
}

/**
 * An instant as the clinic reads it (readingParts: Intl once per hour met, formatter cached per
 * zone in time-zone.ts). `parts`: the instant's local parts when the caller has them already.
 */
export function localReading(at: Date, tz: string, parts: LocalParts = readingParts(at, tz)): LocalReading {
  return {
    localDate: localDateOf(parts),
    localTime: `${pad(parts.hour)}:${pad(parts.minute)}`,
    label: `${dayWords(parts)} ${atTime(parts.hour, parts.minute)}`,
  };
}

/** The reading of an instant that may be absent (a nullable timestamp). */
export function localReadingOrNull(at: Date | null | undefined, tz: string): LocalReading | null {
  return at ? localReading(at, tz) : null;
}

export function slotWords(start: Date, tz: string, parts: LocalParts = localParts(start, tz)): SlotWords {
  return { ...localReading(start, tz, parts), partOfDay: partOfDayOf(parts) };
}

/** The schema of a reading, flat on an object whose `start` (or only time) it reads. */
export function localReadingFields(of = 'the start') {
  return {
    localDate: Type.String({ description: `${cap(of)}: \`YYYY-MM-DD\` in the clinic’s time zone`, examples: ['2026-03-04'] }),
    localTime: Type.String({ description: `${cap(of)}: \`HH:MM\` in the clinic’s time zone`, examples: ['09:30'] }),
    label: Type.String({
      description: `${cap(of)} in Italian words, to be read out as it is (never convert the UTC instant yourself)`,
      examples: ['martedì 4 marzo alle 9:30'],
    }),
  };
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The schema of a reading as an object of its own (`<field>Local`), for a record with several times. */
export function LocalReadingSchema(of: string) {
  return Type.Object(localReadingFields(of), {
    additionalProperties: false,
    description: `${cap(of)} in the clinic’s time zone: read \`label\` (or localDate/localTime) to the caller`,
  });
}

export function NullableLocalReading(of: string) {
  return Nullable(LocalReadingSchema(of));
}

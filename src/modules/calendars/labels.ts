/**
 * Times as an agent says them (issue 15): the local date and time in the clinic's zone, the part
 * of the day, and a short Italian phrase ("martedì 4 marzo alle 9:30"). Slots, appointments,
 * holds, waitlist offers and entries, recalls and the caller context all read a time out through
 * localReading, so an agent never converts a UTC instant itself.
 */
import { Type } from 'typebox';
import { Nullable } from '../../core/schemas.js';
import { localParts } from './timezone.js';

export const PARTS_OF_DAY = ['morning', 'afternoon', 'evening'] as const;
export type PartOfDay = (typeof PARTS_OF_DAY)[number];

/** An instant read in the clinic's zone. */
export interface LocalReading {
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
 * test/modules/calendars/labels.test.ts compares every day of a year), written out: the day of
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

/**
 * An instant as the clinic reads it: one Intl call (its formatter cached per zone, timezone.ts).
 * `parts`: the instant's local parts when the caller has them already.
 */
export function localReading(at: Date, tz: string, parts: LocalParts = localParts(at, tz)): LocalReading {
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

/** Whether a slot suits a waitlist entry's preferred days and parts of the day: one pure rule. */
import { localParts } from '../../lib/time-zone.js';
import { WEEKDAYS } from '../facilities/index.js';
import type { PartOfDay } from './schema.js';

/** The part of the day of a local hour: morning before 13:00, afternoon 13:00-17:59, evening from 18:00. */
export function partOfDay(hour: number): PartOfDay {
  return hour < 13 ? 'morning' : hour < 18 ? 'afternoon' : 'evening';
}

/** An empty list prefers nothing: any day, any time. The slot is read by its start in the clinic's time zone. */
export function fitsPreferences(entry: { days: readonly string[]; parts_of_day: readonly string[] }, start: Date, tz: string): boolean {
  const local = localParts(start, tz);
  const weekday = WEEKDAYS[new Date(Date.UTC(local.year, local.month - 1, local.day)).getUTCDay()]!;
  if (entry.days.length > 0 && !entry.days.includes(weekday)) return false;
  if (entry.parts_of_day.length > 0 && !entry.parts_of_day.includes(partOfDay(local.hour))) return false;
  return true;
}

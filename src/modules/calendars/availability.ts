/**
 * Free slots of a calendar as an agent can use them (spec 4.11): each slot with its
 * local date, time and an Italian phrase; optionally spread over days or parts of days; and an
 * empty answer that says why and when the next free slot is, so an agent never meets a bare
 * empty list.
 */
import { bookingChannel, type Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import type { Db } from '../../db/transaction.js';
import { localDateOf, partOfDayOf, slotWords, type SlotWords } from '../../lib/local-reading.js';
import type { AvailabilityQuery, EMPTY_REASONS } from './schema.js';
import { localParts, localToUtc } from '../../lib/time-zone.js';
import { availabilityQueryIssues, MAX_WINDOW_DAYS } from './checks.js';
import { bookableWindow, findCalendar, freeSlots, gridSlots, type CalendarRow, type Slot, type Window } from './service.js';

export { MAX_WINDOW_DAYS };
type EmptyReason = (typeof EMPTY_REASONS)[number];

type SpokenSlot = Slot & SlotWords;

interface Availability {
  calendarId: string;
  slotMinutes: number;
  window: { from: string; to: string } | null;
  data: SpokenSlot[];
  emptyReason: EmptyReason | null;
  nextAvailable: SpokenSlot | null;
}

/** How far past an empty window nextAvailable looks (never beyond the booking horizon). */
const NEXT_SEARCH_DAYS = 93;

function spoken(slot: Slot, tz: string): SpokenSlot {
  return { ...slot, ...slotWords(new Date(slot.start), tz) };
}

/**
 * The slots the answer shows, in order: every free slot, or with `spread` the first of each
 * local day (`day`) or of each part of each day (`part_of_day`); at most `limit`. Words are
 * made only for the slots kept, and the walk stops at `limit`: a week of 15-minute slots is
 * 672 slots, and labelling each (two Intl calls, ~20 µs) was most of an availability's time.
 */
function pickSlots(free: Slot[], tz: string, spread: AvailabilityQuery['spread'], limit: number | undefined): SpokenSlot[] {
  const kept: SpokenSlot[] = [];
  const seen = new Set<string>();
  for (const slot of free) {
    if (limit !== undefined && kept.length >= limit) break;
    const start = new Date(slot.start);
    const parts = localParts(start, tz);
    if (spread) {
      const group = spread === 'day' ? localDateOf(parts) : `${localDateOf(parts)} ${partOfDayOf(parts)}`;
      if (seen.has(group)) continue;
      seen.add(group);
    }
    kept.push({ ...slot, ...slotWords(start, tz, parts) });
  }
  return kept;
}

/** The first free slot after `after`, within the horizon, or null. */
async function nextFree(db: Db, cal: CalendarRow, tz: string, after: Date, doctorId: string | undefined): Promise<Slot | null> {
  for (let from = after, searched = 0; searched < NEXT_SEARCH_DAYS; searched += MAX_WINDOW_DAYS) {
    const to = new Date(from.getTime() + MAX_WINDOW_DAYS * 86_400_000);
    const window = bookableWindow(cal, from, to);
    if (!window) {
      // Before the minimum notice: start looking at it; past the horizon: nothing more.
      if (to.getTime() <= Date.now() + cal.min_notice_minutes * 60_000) {
        from = new Date(Date.now() + cal.min_notice_minutes * 60_000);
        continue;
      }
      return null;
    }
    const [first] = await freeSlots(db, cal, tz, window, { doctorId });
    if (first) return first;
    from = to;
  }
  return null;
}

/** Where each part of a local day starts and ends, in minutes after local midnight (src/lib/local-reading.ts partOfDayOf). */
const PART_MINUTES = { morning: [0, 13 * 60], afternoon: [13 * 60, 18 * 60], evening: [18 * 60, 24 * 60] } as const;

/** The window of a local day `YYYY-MM-DD` in `tz`, or of one part of it. */
function dayWindow(date: string, part: AvailabilityQuery['partOfDay'], tz: string): { from: Date; to: Date } {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const [start, end] = part ? PART_MINUTES[part] : [0, 24 * 60];
  return { from: localToUtc(year, month, day, start, tz), to: localToUtc(year, month, day, end, tz) };
}

export async function availability(db: Db, actor: Actor, id: string, q: AvailabilityQuery): Promise<Availability> {
  const day = q.date ? dayWindow(q.date, q.partOfDay, actor.timeZone) : null;
  const from = day ? day.from : q.from ? new Date(q.from) : new Date();
  const to = day ? day.to : q.to ? new Date(q.to) : new Date(from.getTime() + 7 * 86_400_000);
  const cal = await findCalendar(db, actor, id);
  const issues = availabilityQueryIssues(q, undefined, from.getTime());
  if (q.doctorId && !cal.doctor_ids.includes(q.doctorId.toLowerCase())) issues.push({ path: 'doctorId', message: 'non è un medico di questo calendario' });
  if (issues.length > 0) throw ApiError.invalid('query', issues);

  const base = { calendarId: cal.id, slotMinutes: cal.slot_minutes };
  const empty = (window: Window | null, emptyReason: EmptyReason, nextAvailable: SpokenSlot | null = null): Availability => ({
    ...base,
    window: window && { from: window.from.toISOString(), to: window.to.toISOString() },
    data: [],
    emptyReason,
    nextAvailable,
  });
  if (!cal.active) return empty(null, 'calendar_inactive');
  const channel = bookingChannel(actor);
  if (channel !== null && !cal.bookable_by.includes(channel)) return empty(null, 'not_bookable_by_agent');
  const tz = actor.timeZone;
  const window = bookableWindow(cal, from, to);
  if (!window) {
    if (from.getTime() >= Date.now() + cal.horizon_days * 86_400_000) return empty(null, 'beyond_horizon');
    // Wholly before the minimum notice (or past): nothing here, the next slot is later.
    const next = await nextFree(db, cal, tz, to, q.doctorId);
    return empty(null, 'closed', next && spoken(next, tz));
  }
  const free = await freeSlots(db, cal, tz, window, { doctorId: q.doctorId });
  if (free.length === 0) {
    const reason = gridSlots(cal, tz, window).length === 0 ? 'closed' : 'fully_booked';
    const next = await nextFree(db, cal, tz, window.to, q.doctorId);
    return empty(window, reason, next && spoken(next, tz));
  }
  const data = pickSlots(free, tz, q.spread, q.limit);
  return { ...base, window: { from: window.from.toISOString(), to: window.to.toISOString() }, data, emptyReason: null, nextAvailable: null };
}

/**
 * Calendars (booking rules) and their free slots. A calendar belongs to a facility and has
 * weekly working hours (clinic timezone), a slot length, doctors and chairs, a minimum
 * notice, a booking horizon and a cancellation notice.
 */
import { bookingChannel, type Actor } from '../../core/actor.js';
import type { Db, Transaction } from '../../db/transaction.js';
import type { WeekSchedule } from '../../db/tables/agenda.js';
import { ApiError, type ValidationIssue } from '../../core/errors.js';
import { assertVersion } from '../../core/version.js';
import { checkRefs, findScoped, lockScoped } from '../../db/scoped.js';
import { WEEKDAYS, minutesOf } from '../facilities/index.js';
import { calendarBodyIssues } from './checks.js';
import { localParts, localToUtc } from '../../lib/time-zone.js';
import type { CalendarChanges, CalendarListQuery, CalendarView, NewCalendar } from './schema.js';
import { busyTimes, insertCalendar, pageCalendars, updateCalendarRow, type CalendarRow, type Slot, type SlotOptions } from './store.js';

export type { CalendarRow, Slot, SlotOptions } from './store.js';

export function calendarView(row: CalendarRow): CalendarView {
  return {
    id: row.id,
    facilityId: row.facility_id,
    name: row.name,
    description: row.description,
    slotMinutes: row.slot_minutes,
    type: row.appointment_type as CalendarView['type'],
    category: row.appointment_category as CalendarView['category'],
    workingHours: row.working_hours,
    doctorIds: row.doctor_ids,
    chairIds: row.chair_ids,
    minNoticeMinutes: row.min_notice_minutes,
    horizonDays: row.horizon_days,
    cancellationNoticeMinutes: row.cancellation_notice_minutes,
    bookableBy: row.bookable_by,
    takesNewPatients: row.takes_new_patients,
    keywords: row.keywords,
    active: row.active,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

async function calendarIssues(trx: Transaction, actor: Actor, input: CalendarChanges, facilityId: string): Promise<ValidationIssue[]> {
  const chairs = (input.chairIds ?? []).map((id, i) => ({ field: `chairIds.${i}`, table: 'chairs' as const, id }));
  const { issues, rows } = await checkRefs(trx, actor, [
    { field: 'facilityId', table: 'facilities', id: input.facilityId },
    ...(input.doctorIds ?? []).map((id, i) => ({ field: `doctorIds.${i}`, table: 'doctors' as const, id })),
    ...chairs,
  ]);
  // A calendar's chairs stand in its own facility.
  for (const { field } of chairs) {
    const chair = rows.get(field);
    if (chair && chair.facility_id !== facilityId) issues.push({ path: field, message: 'la poltrona è di un’altra sede' });
  }
  issues.push(...calendarBodyIssues(input));
  return issues;
}

export async function createCalendar(db: Db, actor: Actor, input: NewCalendar): Promise<CalendarRow> {
  return db.transaction().execute(async (trx) => {
    const issues = await calendarIssues(trx, actor, input, input.facilityId);
    if (issues.length > 0) throw ApiError.invalid('body', issues);
    return insertCalendar(trx, actor.clinicId, input);
  });
}

export async function findCalendar(db: Db, actor: Actor, id: string): Promise<CalendarRow> {
  return findScoped(db, 'calendars', actor, id);
}

/** A page of the calendars the key sees, by last modification (oldest first), of a facility or of a doctor. */
export async function listCalendars(db: Db, actor: Actor, q: CalendarListQuery): Promise<{ data: CalendarView[]; nextCursor: string | null }> {
  const page = await pageCalendars(db, actor, q);
  return { data: page.items.map(calendarView), nextCursor: page.nextCursor };
}

/** The calendar the key sees, as /v1 shows it (404 otherwise). */
export async function getCalendar(db: Db, actor: Actor, id: string): Promise<CalendarView> {
  return calendarView(await findCalendar(db, actor, id));
}

export async function updateCalendar(db: Db, actor: Actor, id: string, input: CalendarChanges, expected: number | null): Promise<CalendarRow> {
  return db.transaction().execute(async (trx) => {
    const current = await lockScoped(trx, 'calendars', actor, id);
    assertVersion(expected, current.version);
    const facilityId = input.facilityId ?? current.facility_id;
    const issues = await calendarIssues(trx, actor, { ...input, chairIds: input.chairIds ?? (input.facilityId ? current.chair_ids : undefined) }, facilityId);
    if (issues.length > 0) throw ApiError.invalid('body', issues);
    return updateCalendarRow(trx, id, input);
  });
}

export interface Window {
  from: Date;
  to: Date;
}

/** The part of [from, to) the calendar's rules let anyone book (minimum notice, horizon), or null. */
export function bookableWindow(cal: CalendarRow, from: Date, to: Date, now = new Date()): Window | null {
  const earliest = now.getTime() + cal.min_notice_minutes * 60_000;
  const latest = now.getTime() + cal.horizon_days * 86_400_000;
  const start = Math.max(from.getTime(), earliest);
  const end = Math.min(to.getTime(), latest);
  if (!cal.active || start >= end) return null;
  return { from: new Date(start), to: new Date(end) };
}

/** A calendar closed to this key's channel (`bookableBy`) is `403 forbidden` reason `not_bookable_by_agent`. */
export function assertBookableBy(cal: CalendarRow, who: Actor): void {
  const channel = bookingChannel(who);
  if (channel !== null && !cal.bookable_by.includes(channel)) {
    throw ApiError.forbidden(
      'not_bookable_by_agent',
      { bookableBy: cal.bookable_by },
      'Questo calendario non si può prenotare con questa chiave: va prenotato dallo studio.',
    );
  }
}

/**
 * Slot starts of the calendar's working hours whose start falls in the window. On a day whose
 * next local midnight is 24 hours after its own, the offset from UTC does not change during
 * the day: a local time is that midnight plus its minutes, two conversions per day instead of
 * one per slot (a booking checks a 3-day grid: 864 five-minute slots, ~1,700 Intl calls, were
 * most of its time). Days with a change of offset convert each slot.
 */
export function gridSlots(cal: CalendarRow, tz: string, window: Window): Array<{ start: Date; end: Date }> {
  const slotMs = cal.slot_minutes * 60_000;
  const out: Array<{ start: Date; end: Date }> = [];
  const first = localParts(new Date(window.from.getTime() - 86_400_000), tz);
  const last = localParts(new Date(window.to.getTime() + 86_400_000), tz);
  const lastDay = Date.UTC(last.year, last.month - 1, last.day);
  const from = window.from.getTime();
  const to = window.to.getTime();
  for (let day = Date.UTC(first.year, first.month - 1, first.day); day <= lastDay; day += 86_400_000) {
    const d = new Date(day);
    const weekday = WEEKDAYS[d.getUTCDay()]!;
    const intervals = cal.working_hours[weekday as keyof WeekSchedule] ?? [];
    if (intervals.length === 0) continue;
    const [y, mo, dd] = [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()];
    const midnight = localToUtc(y, mo, dd, 0, tz).getTime();
    const steady = localToUtc(y, mo, dd + 1, 0, tz).getTime() - midnight === 86_400_000;
    for (const interval of intervals) {
      const close = minutesOf(interval.close);
      for (let m = minutesOf(interval.open); m + cal.slot_minutes <= close; m += cal.slot_minutes) {
        const start = steady ? midnight + m * 60_000 : localToUtc(y, mo, dd, m, tz).getTime();
        if (start >= from && start < to) out.push({ start: new Date(start), end: new Date(start + slotMs) });
      }
    }
  }
  return out.sort((a, b) => a.start.getTime() - b.start.getTime());
}

/**
 * Free slots of the calendar in the window: on the slot grid of its working hours, with a
 * doctor of the calendar (or `doctorId`) and, when the calendar has chairs, a chair, neither
 * in an appointment that overlaps the slot. `excludeAppointmentId` ignores one appointment
 * (the one being moved).
 */
export async function freeSlots(db: Db, cal: CalendarRow, tz: string, window: Window, opts: SlotOptions = {}): Promise<Slot[]> {
  const grid = gridSlots(cal, tz, window);
  if (grid.length === 0) return [];
  const doctors = opts.doctorId ? [opts.doctorId.toLowerCase()] : cal.doctor_ids;
  const chairs = cal.chair_ids;
  const busy = await busyTimes(db, cal.clinic_id, doctors, chairs, grid[0]!.start, grid[grid.length - 1]!.end, opts);
  // One sweep over the grid (slots in time order, all of one length) and the busy times sorted
  // by start: `around` keeps the busy times begun before the slot ends and drops for good those
  // ended by its start. Filtering every busy time for every slot cost grid x busy Date
  // comparisons: a week of 15-minute slots against a doctor booked all week (672 x 336) took
  // tens of milliseconds of CPU per availability, the sweep under one (docs/performance.md).
  const byStart = busy
    .map((b) => ({ start: b.start_at.getTime(), end: b.end_at.getTime(), doctor_id: b.doctor_id, chair_id: b.chair_id }))
    .sort((a, b) => a.start - b.start);
  let next = 0;
  let around: typeof byStart = [];
  const slots: Slot[] = [];
  for (const s of grid) {
    const start = s.start.getTime();
    const end = s.end.getTime();
    while (next < byStart.length && byStart[next]!.start < end) around.push(byStart[next++]!);
    around = around.filter((b) => b.end > start);
    const doctorId = doctors.find((d) => !around.some((b) => b.doctor_id === d));
    if (!doctorId) continue;
    let chairId: string | null = null;
    if (chairs.length > 0) {
      chairId = chairs.find((c) => !around.some((b) => b.chair_id === c)) ?? null;
      if (!chairId) continue;
    }
    slots.push({ start: s.start.toISOString(), end: s.end.toISOString(), doctorId, chairId });
  }
  return slots;
}

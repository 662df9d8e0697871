/**
 * Calendars (booking rules) and their free slots. A calendar belongs to a facility and has
 * weekly working hours (clinic timezone), a slot length, doctors and chairs, a minimum
 * notice, a booking horizon and a cancellation notice.
 */
import type { Actor } from '../../core/actor.js';
import { randomUUID } from 'node:crypto';
import { sql, type Selectable, type SqlBool } from 'kysely';
import type { Db, Transaction } from '../../db/transaction.js';
import type { CalendarsTable, WeekSchedule } from '../../db/tables/agenda.js';
import { ApiError, type ValidationIssue } from '../../core/errors.js';
import { assertVersion } from '../../core/version.js';
import { BLOCKING_EXCLUDED } from '../appointments/model.js';
import type { AppointmentInsert } from '../appointments/service.js';
import { checkRefs, findScoped, lockScoped } from '../../db/scoped.js';
import { WEEKDAYS, minutesOf } from '../facilities/schedule.js';
import { calendarBodyIssues } from './checks.js';
import { localParts, localToUtc } from './timezone.js';
import type { CalendarChanges, CalendarView, NewCalendar } from './schema.js';

export type CalendarRow = Selectable<CalendarsTable>;

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

type CalendarInput = CalendarChanges;

/** The columns of the fields sent (a change sets only those). */
function calendarColumns(input: CalendarInput) {
  const set = <K extends keyof CalendarInput, V>(key: K, column: string, value: (v: NonNullable<CalendarInput[K]> | null) => V) =>
    input[key] !== undefined ? { [column]: value(input[key] as NonNullable<CalendarInput[K]> | null) } : {};
  return {
    ...set('facilityId', 'facility_id', (v) => v),
    ...set('name', 'name', (v) => v),
    ...set('description', 'description', (v) => v),
    ...set('slotMinutes', 'slot_minutes', (v) => v),
    ...set('type', 'appointment_type', (v) => v),
    ...set('category', 'appointment_category', (v) => v),
    ...set('workingHours', 'working_hours', (v) => JSON.stringify(v)),
    ...set('doctorIds', 'doctor_ids', (v) => [...new Set(v)]),
    ...set('chairIds', 'chair_ids', (v) => [...new Set(v)]),
    ...set('minNoticeMinutes', 'min_notice_minutes', (v) => v),
    ...set('horizonDays', 'horizon_days', (v) => v),
    ...set('cancellationNoticeMinutes', 'cancellation_notice_minutes', (v) => v),
    ...set('bookableBy', 'bookable_by', (v) => [...new Set(v)]),
    ...set('takesNewPatients', 'takes_new_patients', (v) => v),
    // Matched against a caller's words: kept lower-case, without repeats.
    ...set('keywords', 'keywords', (v) => [...new Set((v ?? []).map((k) => k.trim().toLowerCase()))]),
    ...set('active', 'active', (v) => v),
  };
}

async function calendarIssues(trx: Transaction, actor: Actor, input: CalendarInput, facilityId: string): Promise<ValidationIssue[]> {
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
    return trx
      .insertInto('calendars')
      .values({
        id: randomUUID(),
        clinic_id: actor.clinicId,
        facility_id: input.facilityId,
        name: input.name,
        slot_minutes: input.slotMinutes,
        working_hours: JSON.stringify(input.workingHours),
        doctor_ids: [...new Set(input.doctorIds)],
        ...calendarColumns(input),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

export async function findCalendar(db: Db, actor: Actor, id: string): Promise<CalendarRow> {
  return findScoped(db, 'calendars', actor, id);
}

export async function updateCalendar(db: Db, actor: Actor, id: string, input: CalendarInput, expected: number | null): Promise<CalendarRow> {
  return db.transaction().execute(async (trx) => {
    const current = await lockScoped(trx, 'calendars', actor, id);
    assertVersion(expected, current.version);
    const facilityId = input.facilityId ?? current.facility_id;
    const issues = await calendarIssues(trx, actor, { ...input, chairIds: input.chairIds ?? (input.facilityId ? current.chair_ids : undefined) }, facilityId);
    if (issues.length > 0) throw ApiError.invalid('body', issues);
    return trx
      .updateTable('calendars')
      .set({
        ...calendarColumns(input),
        updated_at: sql`now()`,
        version: sql`version + 1`,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

export interface Slot {
  start: string;
  end: string;
  doctorId: string | null;
  chairId: string | null;
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
  // 43-62 ms of CPU per availability, the sweep 0.07-0.6 ms (a throwaway script, 200 runs each).
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

/**
 * The appointment that books `slot` of `cal` for a patient: the slot's doctor, chair and time, the
 * calendar's facility, and its appointment type and category unless the booking gives its own
 * (null clears them).
 */
export function slotAppointment(
  cal: CalendarRow,
  slot: Slot,
  patientId: string,
  details: Pick<AppointmentInsert, 'origin' | 'type' | 'category' | 'title' | 'reason'>,
): AppointmentInsert {
  return {
    ...details,
    patientId,
    facilityId: cal.facility_id,
    doctorId: slot.doctorId,
    chairId: slot.chairId,
    calendarId: cal.id,
    start: slot.start,
    end: slot.end,
    status: 'scheduled',
    type: details.type === undefined ? cal.appointment_type : details.type,
    category: details.category === undefined ? cal.appointment_category : details.category,
  };
}

export interface SlotOptions {
  doctorId?: string;
  /** The appointment being moved: its own time is free. */
  excludeAppointmentId?: string;
  /** The hold being booked: its own time is free. */
  excludeHoldId?: string;
  /** The waitlist offer being accepted: its own time is free. */
  excludeOfferId?: string;
  /** The instant the calendar's notice and horizon are measured from (a live hold's creation); default now. */
  now?: Date;
}

export interface BusyTime {
  doctor_id: string | null;
  chair_id: string | null;
  start_at: Date;
  end_at: Date;
  /** A hold's expiry; null for an appointment. */
  expires_at: Date | null;
}

/**
 * Time taken on these doctors or chairs in [from, to): appointments that hold time, live
 * slot holds (src/modules/holds) and live waitlist offers (src/modules/waitlist), in one query.
 */
export async function busyTimes(...args: Parameters<typeof busyTimesQuery>): Promise<BusyTime[]> {
  return (await busyTimesQuery(...args).execute()) as BusyTime[];
}

/** busyTimes' query, for a statement that does more (a booking's insert, unless the time is busy). */
export function busyTimesQuery(
  db: Db,
  clinicId: string,
  doctors: readonly string[],
  chairs: readonly string[],
  from: Date,
  to: Date,
  opts: Pick<SlotOptions, 'excludeAppointmentId' | 'excludeHoldId' | 'excludeOfferId'> = {},
) {
  const people = sql<SqlBool>`(doctor_id = ANY(${[...doctors]}::uuid[]) OR chair_id = ANY(${[...chairs]}::uuid[]))`;
  // Appointments through the GiST indexes of the overlap constraints (migration 0020): one
  // `doctor_id = … OR chair_id = …` per resource, the time as a range overlap and the status
  // written as the constraints' predicate, so each arm is an index scan of the time asked for.
  // The form `= ANY(…) AND start_at < to AND end_at > from` reads every appointment of the
  // doctor that started before `to`, the whole of its history (a doctor with 100,000 past
  // appointments: a scan of 150 ms against 0.4 ms).
  const resources = [...doctors.map((id) => sql`doctor_id = ${id}::uuid`), ...chairs.map((id) => sql`chair_id = ${id}::uuid`)];
  let appointments = db
    .selectFrom('appointments')
    .select(['doctor_id', 'chair_id', 'start_at', 'end_at', sql<Date | null>`null::timestamptz`.as('expires_at')])
    .where('clinic_id', '=', clinicId)
    .where(sql<SqlBool>`status NOT IN (${sql.raw(BLOCKING_EXCLUDED.map((s) => `'${s}'`).join(', '))})`)
    .where(sql<SqlBool>`tstzrange(start_at, end_at, '[)') && tstzrange(${from}, ${to}, '[)')`)
    .where(resources.length > 0 ? sql<SqlBool>`(${sql.join(resources, sql` OR `)})` : sql<SqlBool>`false`);
  if (opts.excludeAppointmentId) appointments = appointments.where('id', '<>', opts.excludeAppointmentId);
  let holds = db
    .selectFrom('slot_holds')
    .select(['doctor_id', 'chair_id', 'start_at', 'end_at', 'expires_at'])
    .where('clinic_id', '=', clinicId)
    .where('appointment_id', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .where('start_at', '<', to)
    .where('end_at', '>', from)
    .where(people);
  if (opts.excludeHoldId) holds = holds.where('id', '<>', opts.excludeHoldId);
  // A live waitlist offer keeps its slot like a hold (src/modules/waitlist): until it is
  // accepted, declined or passed on by the expiry job, nobody else books or holds that time.
  let offers = db
    .selectFrom('waitlist_offers')
    .select(['doctor_id', 'chair_id', 'start_at', 'end_at', 'expires_at'])
    .where('clinic_id', '=', clinicId)
    .where('status', '=', 'offered')
    .where('start_at', '<', to)
    .where('end_at', '>', from)
    .where(people);
  if (opts.excludeOfferId) offers = offers.where('id', '<>', opts.excludeOfferId);
  return appointments.unionAll(holds as never).unionAll(offers as never);
}

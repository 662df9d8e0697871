/**
 * Calendars (booking rules) and their free slots. A calendar belongs to a facility and has
 * weekly working hours (clinic timezone), a slot length, doctors and chairs, a minimum
 * notice, a booking horizon and a cancellation notice.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { Db, Transaction } from '../../db/transaction.js';
import type { CalendarsTable, WeekSchedule } from '../../db/tables/agenda.js';
import type { TenantScope } from '../../db/tenant.js';
import { ApiError, type ValidationIssue } from '../../core/errors.js';
import { assertVersion } from '../../core/version.js';
import { BLOCKING_EXCLUDED } from '../appointments/model.js';
import { checkRefs, findScoped, lockScoped } from '../../db/scoped.js';
import { WEEKDAYS, minutesOf, scheduleIssues } from '../facilities/schedule.js';
import { localParts, localToUtc } from './timezone.js';

export type CalendarRow = Selectable<CalendarsTable>;

export interface CalendarView {
  id: string;
  facilityId: string;
  name: string;
  slotMinutes: number;
  workingHours: WeekSchedule;
  doctorIds: string[];
  chairIds: string[];
  minNoticeMinutes: number;
  horizonDays: number;
  cancellationNoticeMinutes: number;
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

export function calendarView(row: CalendarRow): CalendarView {
  return {
    id: row.id,
    facilityId: row.facility_id,
    name: row.name,
    slotMinutes: row.slot_minutes,
    workingHours: row.working_hours,
    doctorIds: row.doctor_ids,
    chairIds: row.chair_ids,
    minNoticeMinutes: row.min_notice_minutes,
    horizonDays: row.horizon_days,
    cancellationNoticeMinutes: row.cancellation_notice_minutes,
    active: row.active,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export interface CalendarInput {
  facilityId?: string;
  name?: string;
  slotMinutes?: number;
  workingHours?: WeekSchedule;
  doctorIds?: string[];
  chairIds?: string[];
  minNoticeMinutes?: number;
  horizonDays?: number;
  cancellationNoticeMinutes?: number;
  active?: boolean;
}

async function calendarIssues(trx: Transaction, scope: TenantScope, input: CalendarInput, facilityId: string): Promise<ValidationIssue[]> {
  const chairs = (input.chairIds ?? []).map((id, i) => ({ field: `chairIds.${i}`, table: 'chairs' as const, id }));
  const { issues, rows } = await checkRefs(trx, scope, [
    { field: 'facilityId', table: 'facilities', id: input.facilityId },
    ...(input.doctorIds ?? []).map((id, i) => ({ field: `doctorIds.${i}`, table: 'doctors' as const, id })),
    ...chairs,
  ]);
  // A calendar's chairs stand in its own facility.
  for (const { field } of chairs) {
    const chair = rows.get(field);
    if (chair && chair.facility_id !== facilityId) issues.push({ path: field, message: 'la poltrona è di un’altra sede' });
  }
  if (input.workingHours) issues.push(...scheduleIssues(input.workingHours, 'workingHours'));
  return issues;
}

export async function createCalendar(
  db: Db,
  scope: TenantScope,
  input: Required<Pick<CalendarInput, 'facilityId' | 'name' | 'slotMinutes' | 'workingHours' | 'doctorIds'>> & CalendarInput,
): Promise<CalendarRow> {
  return db.transaction().execute(async (trx) => {
    const issues = await calendarIssues(trx, scope, input, input.facilityId);
    if (issues.length > 0) throw ApiError.invalid('body', issues);
    return trx
      .insertInto('calendars')
      .values({
        id: randomUUID(),
        clinic_id: scope.clinicId,
        facility_id: input.facilityId,
        name: input.name,
        slot_minutes: input.slotMinutes,
        working_hours: JSON.stringify(input.workingHours),
        doctor_ids: [...new Set(input.doctorIds)],
        chair_ids: [...new Set(input.chairIds ?? [])],
        min_notice_minutes: input.minNoticeMinutes ?? 0,
        horizon_days: input.horizonDays ?? 60,
        cancellation_notice_minutes: input.cancellationNoticeMinutes ?? 0,
        active: input.active ?? true,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

export async function findCalendar(db: Db, scope: TenantScope, id: string): Promise<CalendarRow> {
  return findScoped(db, 'calendars', scope, id);
}

export async function updateCalendar(db: Db, scope: TenantScope, id: string, input: CalendarInput, expected: number | null): Promise<CalendarRow> {
  return db.transaction().execute(async (trx) => {
    const current = await lockScoped(trx, 'calendars', scope, id);
    assertVersion(expected, current.version);
    const facilityId = input.facilityId ?? current.facility_id;
    const issues = await calendarIssues(trx, scope, { ...input, chairIds: input.chairIds ?? (input.facilityId ? current.chair_ids : undefined) }, facilityId);
    if (issues.length > 0) throw ApiError.invalid('body', issues);
    return trx
      .updateTable('calendars')
      .set({
        ...(input.facilityId !== undefined ? { facility_id: input.facilityId } : {}),
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.slotMinutes !== undefined ? { slot_minutes: input.slotMinutes } : {}),
        ...(input.workingHours !== undefined ? { working_hours: JSON.stringify(input.workingHours) } : {}),
        ...(input.doctorIds !== undefined ? { doctor_ids: [...new Set(input.doctorIds)] } : {}),
        ...(input.chairIds !== undefined ? { chair_ids: [...new Set(input.chairIds)] } : {}),
        ...(input.minNoticeMinutes !== undefined ? { min_notice_minutes: input.minNoticeMinutes } : {}),
        ...(input.horizonDays !== undefined ? { horizon_days: input.horizonDays } : {}),
        ...(input.cancellationNoticeMinutes !== undefined ? { cancellation_notice_minutes: input.cancellationNoticeMinutes } : {}),
        ...(input.active !== undefined ? { active: input.active } : {}),
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

/** The clinic's time zone: carried by an API key's scope, read for the back office's. */
export async function clinicTimeZone(db: Db, scope: TenantScope): Promise<string> {
  if (scope.timeZone) return scope.timeZone;
  const row = await db.selectFrom('clinics').select('timezone').where('id', '=', scope.clinicId).executeTakeFirstOrThrow();
  return row.timezone;
}

/**
 * Free slots of the calendar in the window: on the slot grid of its working hours, with a
 * doctor of the calendar (or `doctorId`) and, when the calendar has chairs, a chair, neither
 * in an appointment that overlaps the slot. `excludeAppointmentId` ignores one appointment
 * (the one being moved).
 */
export async function freeSlots(
  db: Db,
  cal: CalendarRow,
  tz: string,
  window: Window,
  opts: { doctorId?: string; excludeAppointmentId?: string } = {},
): Promise<Slot[]> {
  const grid = gridSlots(cal, tz, window);
  if (grid.length === 0) return [];
  const doctors = opts.doctorId ? [opts.doctorId.toLowerCase()] : cal.doctor_ids;
  const chairs = cal.chair_ids;
  let q = db
    .selectFrom('appointments')
    .select(['doctor_id', 'chair_id', 'start_at', 'end_at'])
    .where('clinic_id', '=', cal.clinic_id)
    .where('status', 'not in', [...BLOCKING_EXCLUDED])
    .where('start_at', '<', grid[grid.length - 1]!.end)
    .where('end_at', '>', grid[0]!.start)
    .where((eb) => eb.or([eb('doctor_id', 'in', doctors), ...(chairs.length > 0 ? [eb('chair_id', 'in', chairs)] : [])]));
  if (opts.excludeAppointmentId) q = q.where('id', '<>', opts.excludeAppointmentId);
  const busy = await q.execute();
  const overlaps = (b: { start_at: Date; end_at: Date }, s: { start: Date; end: Date }) => b.start_at < s.end && b.end_at > s.start;
  const slots: Slot[] = [];
  for (const s of grid) {
    const around = busy.filter((b) => overlaps(b, s));
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

export const MAX_WINDOW_DAYS = 31;

export async function availability(
  db: Db,
  scope: TenantScope,
  id: string,
  q: { from?: string; to?: string; doctorId?: string },
): Promise<{ calendarId: string; slotMinutes: number; window: { from: string; to: string } | null; data: Slot[] }> {
  const from = q.from ? new Date(q.from) : new Date();
  const to = q.to ? new Date(q.to) : new Date(from.getTime() + 7 * 86_400_000);
  const cal = await findCalendar(db, scope, id);
  const issues: ValidationIssue[] = [];
  if (to.getTime() <= from.getTime()) issues.push({ path: 'to', message: 'deve essere successivo a from' });
  else if (to.getTime() - from.getTime() > MAX_WINDOW_DAYS * 86_400_000)
    issues.push({ path: 'to', message: `la finestra può durare al massimo ${MAX_WINDOW_DAYS} giorni` });
  if (q.doctorId && !cal.doctor_ids.includes(q.doctorId.toLowerCase())) issues.push({ path: 'doctorId', message: 'non è un medico di questo calendario' });
  if (issues.length > 0) throw ApiError.invalid('query', issues);
  const window = bookableWindow(cal, from, to);
  if (!window) return { calendarId: cal.id, slotMinutes: cal.slot_minutes, window: null, data: [] };
  const tz = await clinicTimeZone(db, scope);
  const data = await freeSlots(db, cal, tz, window, { doctorId: q.doctorId });
  return { calendarId: cal.id, slotMinutes: cal.slot_minutes, window: { from: window.from.toISOString(), to: window.to.toISOString() }, data };
}

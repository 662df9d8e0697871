/**
 * Booking, rescheduling and cancelling through the API, under the rules of the calendar the
 * appointment comes from. The overlap constraints of the appointments table make exactly one
 * of several parallel bookings of one slot win; the losers get `409 no_availability`.
 */
import type { Actor } from '../../core/actor.js';
import { sql } from 'kysely';
import { ApiError, type ValidationIssue } from '../../core/errors.js';
import { assertVersion } from '../../core/version.js';
import { TRANSITIONS, overlapReason, type AppointmentRow, type AppointmentStatus } from '../appointments/model.js';
import { checkRefs } from '../../db/scoped.js';
import { insertAppointment, lockAppointment, recordRescheduled, setStatusInTx } from '../appointments/service.js';
import { bookableWindow, freeSlots, gridSlots, type CalendarRow, type Slot } from './service.js';
import type { Db } from '../../db/transaction.js';

const ALTERNATIVES = 5;
const ALTERNATIVES_SPAN_MS = 14 * 86_400_000;

class NoSlot extends Error {
  constructor(readonly reason: 'slot_taken' | 'outside_availability') {
    super(reason);
  }
}

/** Up to five free slots nearest to `start` (before or after it). */
async function alternatives(db: Db, cal: CalendarRow, tz: string, start: Date, opts: { doctorId?: string; excludeAppointmentId?: string }): Promise<Slot[]> {
  const window = bookableWindow(cal, new Date(start.getTime() - ALTERNATIVES_SPAN_MS / 2), new Date(start.getTime() + ALTERNATIVES_SPAN_MS));
  if (!window) return [];
  const slots = await freeSlots(db, cal, tz, window, opts);
  return slots
    .sort(
      (a, b) => Math.abs(Date.parse(a.start) - start.getTime()) - Math.abs(Date.parse(b.start) - start.getTime()) || Date.parse(a.start) - Date.parse(b.start),
    )
    .slice(0, ALTERNATIVES)
    .sort((a, b) => Date.parse(a.start) - Date.parse(b.start));
}

async function noAvailability(
  db: Db,
  cal: CalendarRow,
  tz: string,
  start: Date,
  reason: NoSlot['reason'],
  opts: { doctorId?: string; excludeAppointmentId?: string },
): Promise<ApiError> {
  return new ApiError('no_availability', { reason, alternatives: await alternatives(db, cal, tz, start, opts) });
}

/** The free slot starting at `start`, or NoSlot saying why there is none. */
async function slotAt(db: Db, cal: CalendarRow, tz: string, start: Date, opts: { doctorId?: string; excludeAppointmentId?: string }): Promise<Slot> {
  const window = bookableWindow(cal, start, new Date(start.getTime() + 1));
  if (!window || !gridSlots(cal, tz, window).some((s) => s.start.getTime() === start.getTime())) throw new NoSlot('outside_availability');
  const free = await freeSlots(db, cal, tz, window, opts);
  const slot = free.find((s) => Date.parse(s.start) === start.getTime());
  if (!slot) throw new NoSlot('slot_taken');
  return slot;
}

/** Runs a booking command; no slot (or a lost race on the constraint) becomes 409 no_availability with alternatives. */
async function booking<T>(
  db: Db,
  actor: Actor,
  start: Date,
  calOf: () => CalendarRow | null,
  opts: () => { doctorId?: string; excludeAppointmentId?: string },
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    const reason = error instanceof NoSlot ? error.reason : overlapReason(error) ? 'slot_taken' : null;
    const cal = calOf();
    if (!reason || !cal) throw error;
    throw await noAvailability(db, cal, actor.timeZone, start, reason, opts());
  }
}

async function loadCalendar(trx: Db, clinicId: string, id: string): Promise<CalendarRow | undefined> {
  return trx.selectFrom('calendars').selectAll().where('id', '=', id).where('clinic_id', '=', clinicId).executeTakeFirst();
}

export interface BookInput {
  calendarId: string;
  patientId: string;
  start: string;
  doctorId?: string;
  origin?: 'api' | 'bot' | 'voice';
  type?: string | null;
  category?: string | null;
  title?: string | null;
  reason?: string | null;
}

export async function bookAppointment(db: Db, actor: Actor, input: BookInput): Promise<AppointmentRow> {
  const start = new Date(input.start);
  let cal: CalendarRow | null = null;
  const opts = { doctorId: input.doctorId?.toLowerCase() };
  return booking(
    db,
    actor,
    start,
    () => cal,
    () => opts,
    () =>
      db.transaction().execute(async (trx) => {
        const { issues } = await checkRefs(trx, actor, [
          { field: 'calendarId', table: 'calendars', id: input.calendarId },
          { field: 'patientId', table: 'patients', id: input.patientId },
        ]);
        const found = issues.some((i) => i.path === 'calendarId') ? undefined : await loadCalendar(trx, actor.clinicId, input.calendarId);
        if (found && opts.doctorId && !found.doctor_ids.includes(opts.doctorId))
          issues.push({ path: 'doctorId', message: 'non è un medico di questo calendario' });
        if (issues.length > 0) throw ApiError.invalid('body', issues);
        cal = found!;
        const tz = actor.timeZone;
        const slot = await slotAt(trx, cal, tz, start, opts);
        return insertAppointment(trx, actor, {
          patientId: input.patientId,
          facilityId: cal.facility_id,
          doctorId: slot.doctorId,
          chairId: slot.chairId,
          calendarId: cal.id,
          start: slot.start,
          end: slot.end,
          status: 'scheduled',
          origin: input.origin ?? 'api',
          type: input.type,
          category: input.category,
          title: input.title,
          reason: input.reason,
        });
      }),
  );
}

/** The calendar rules for touching an existing appointment through the API (403 forbidden otherwise). */
async function calendarOf(trx: Db, actor: Actor, current: AppointmentRow): Promise<CalendarRow> {
  const cal = current.calendar_id ? await loadCalendar(trx, actor.clinicId, current.calendar_id) : undefined;
  if (!cal) throw ApiError.forbidden('outside_calendar', {}, 'L’appuntamento non viene da un calendario: modificalo dall’agenda dello studio.');
  return cal;
}

function assertNotice(cal: CalendarRow, current: AppointmentRow): void {
  const noticeMs = cal.cancellation_notice_minutes * 60_000;
  if (current.start_at.getTime() - Date.now() < noticeMs) {
    throw ApiError.forbidden(
      'cancellation_notice',
      { cancellationNoticeMinutes: cal.cancellation_notice_minutes },
      'Troppo tardi: il calendario richiede un preavviso maggiore per spostare o annullare.',
    );
  }
}

const API_MOVABLE: ReadonlySet<string> = new Set(['scheduled', 'confirmed', 'pending']);

export async function rescheduleAppointmentViaApi(
  db: Db,
  actor: Actor,
  id: string,
  input: { start: string; doctorId?: string },
  expected: number | null,
): Promise<AppointmentRow> {
  const start = new Date(input.start);
  let cal: CalendarRow | null = null;
  const opts = { doctorId: input.doctorId?.toLowerCase(), excludeAppointmentId: id };
  return booking(
    db,
    actor,
    start,
    () => cal,
    () => opts,
    () =>
      db.transaction().execute(async (trx) => {
        const current = await lockAppointment(trx, actor, id);
        assertVersion(expected, current.version);
        const found = await calendarOf(trx, actor, current);
        if (!API_MOVABLE.has(current.status)) throw ApiError.conflict('not_reschedulable', { status: current.status });
        const issues: ValidationIssue[] = [];
        if (opts.doctorId && !found.doctor_ids.includes(opts.doctorId)) issues.push({ path: 'doctorId', message: 'non è un medico di questo calendario' });
        if (issues.length > 0) throw ApiError.invalid('body', issues);
        assertNotice(found, current);
        cal = found;
        const tz = actor.timeZone;
        // Keep the same doctor when it is free at the new time and no other was asked for.
        let slot: Slot;
        try {
          slot = await slotAt(trx, found, tz, start, { ...opts, doctorId: opts.doctorId ?? current.doctor_id ?? undefined });
        } catch (error) {
          if (opts.doctorId || !(error instanceof NoSlot) || error.reason !== 'slot_taken') throw error;
          slot = await slotAt(trx, found, tz, start, opts);
        }
        const row = await trx
          .updateTable('appointments')
          .set({
            start_at: slot.start,
            end_at: slot.end,
            doctor_id: slot.doctorId,
            chair_id: slot.chairId,
            facility_id: found.facility_id,
            updated_at: sql`now()`,
            version: sql`version + 1`,
          })
          .where('id', '=', current.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        await recordRescheduled(trx, actor, current, row);
        return row;
      }),
  );
}

export async function cancelAppointmentViaApi(db: Db, actor: Actor, id: string, expected: number | null): Promise<AppointmentRow> {
  return db.transaction().execute(async (trx) => {
    const current = await lockAppointment(trx, actor, id);
    assertVersion(expected, current.version);
    const cal = await calendarOf(trx, actor, current);
    if (!TRANSITIONS[current.status as AppointmentStatus]?.includes('cancelled')) {
      throw ApiError.conflict('invalid_transition', { from: current.status, to: 'cancelled', allowed: TRANSITIONS[current.status as AppointmentStatus] ?? [] });
    }
    assertNotice(cal, current);
    return setStatusInTx(trx, actor, current, 'cancelled');
  });
}

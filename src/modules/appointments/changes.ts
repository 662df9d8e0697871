/**
 * Rescheduling and cancelling an appointment through the API, under the rules of the calendar
 * it comes from (the agenda's own changes are appointments/service.ts). A move takes its new
 * slot the way a booking does (calendars/booking.ts); losing the slot is `409 no_availability`
 * with alternatives.
 */
import { sql } from 'kysely';
import type { RescheduleInput } from './schema.js';
import { ApiError, type ValidationIssue } from '../../core/errors.js';
import { assertVersion } from '../../core/version.js';
import { agentOrigin, type Actor } from '../../core/actor.js';
import type { Db } from '../../db/transaction.js';
import { TRANSITIONS, type AppointmentRow, type AppointmentStatus } from './model.js';
import { lockAppointment, recordRescheduled, setStatusInTx } from './service.js';
import { assertBookableBy, booking, claimSlot, NoSlot, slotAt } from '../calendars/booking.js';
import type { CalendarRow, Slot } from '../calendars/service.js';
import { offerFreedTime } from '../waitlist/service.js';

async function loadCalendar(trx: Db, clinicId: string, id: string): Promise<CalendarRow | undefined> {
  return trx.selectFrom('calendars').selectAll().where('id', '=', id).where('clinic_id', '=', clinicId).executeTakeFirst();
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

export async function rescheduleAppointmentViaApi(db: Db, actor: Actor, id: string, input: RescheduleInput, expected: number | null): Promise<AppointmentRow> {
  const start = new Date(input.start);
  let cal: CalendarRow | null = null;
  const opts = { doctorId: input.doctorId?.toLowerCase(), excludeAppointmentId: id };
  return booking(
    db,
    actor,
    () => start,
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
        assertBookableBy(found, actor);
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
        await claimSlot(trx, actor.clinicId, slot, opts);
        const row = await trx
          .updateTable('appointments')
          .set({
            start_at: slot.start,
            end_at: slot.end,
            doctor_id: slot.doctorId,
            chair_id: slot.chairId,
            facility_id: found.facility_id,
            // An agent key that moves an appointment stamps its origin (issue 15).
            ...(agentOrigin(actor) ? { origin: agentOrigin(actor)! } : {}),
            updated_at: sql`now()`,
            version: sql`version + 1`,
          })
          .where('id', '=', current.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        await recordRescheduled(trx, actor, current, row);
        // The old time is free at once, and offered to the waitlist in this transaction (issue 36).
        await offerFreedTime(trx, actor, current, row);
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
    return setStatusInTx(trx, actor, current, 'cancelled', undefined, agentOrigin(actor) ?? undefined);
  });
}

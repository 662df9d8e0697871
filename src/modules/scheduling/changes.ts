/**
 * Rescheduling and cancelling an appointment through the API, under the rules of the calendar
 * it comes from (the agenda's own changes are agenda.ts). A move takes its new
 * slot the way a booking does (booking.ts); losing the slot is `409 no_availability`
 * with alternatives.
 */
import {
  type RescheduleInput,
  TRANSITIONS,
  type AppointmentRow,
  type AppointmentStatus,
  lockAppointment,
  recordRescheduled,
  moveAppointment,
} from '../appointments/index.js';
import { ApiError, type ValidationIssue } from '../../core/errors.js';
import { assertVersion } from '../../core/version.js';
import { agentOrigin, type Actor } from '../../core/actor.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { assertBookableBy, calendarOfClinic, type CalendarRow } from '../calendars/index.js';
import { answeringNoSlot, claimSlot, isNoSlot, overlapAsNoSlot, slotPreferring, unlessNoSlot, type NoSlot } from './slots.js';
import { setStatusInTx } from './agenda.js';
import { offerFreedTime } from './offers.js';

/** The calendar rules for touching an existing appointment through the API (403 forbidden otherwise). */
async function calendarOf(trx: Db, actor: Actor, current: AppointmentRow): Promise<CalendarRow> {
  const cal = current.calendar_id ? await calendarOfClinic(trx, actor.clinicId, current.calendar_id) : undefined;
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

/** The move asks for the time (and doctor, when one is named) the appointment already has. */
function sameSlot(current: AppointmentRow, start: string, doctorId: string | undefined): boolean {
  return new Date(start).getTime() === current.start_at.getTime() && (doctorId === undefined || doctorId === current.doctor_id);
}

/** One attempt at a move, in `trx`; a NoSlot when the new slot is not to be had. */
async function rescheduleIn(trx: Transaction, actor: Actor, id: string, input: RescheduleInput, expected: number | null): Promise<AppointmentRow | NoSlot> {
  const opts = { doctorId: input.doctorId?.toLowerCase(), excludeAppointmentId: id };
  const current = await lockAppointment(trx, actor, id);
  assertVersion(expected, current.version);
  const cal = await calendarOf(trx, actor, current);
  if (!API_MOVABLE.has(current.status)) throw ApiError.conflict('not_reschedulable', { status: current.status });
  const issues: ValidationIssue[] = [];
  if (opts.doctorId && !cal.doctor_ids.includes(opts.doctorId)) issues.push({ path: 'doctorId', message: 'non è un medico di questo calendario' });
  if (issues.length > 0) throw ApiError.invalid('body', issues);
  // Already there (a retry of a move that went through, or a move to where it is): answered
  // unchanged, with no event, before the notice, which the first move may have brought near.
  if (sameSlot(current, input.start, opts.doctorId)) return current;
  assertNotice(cal, current);
  assertBookableBy(cal, actor);
  // The 409's alternatives are of any doctor, unless one was asked for.
  const ask = { cal, start: new Date(input.start), opts };
  // Keep the same doctor when it is free at the new time and no other was asked for.
  const sameDoctor = { ...ask, opts: { ...opts, doctorId: opts.doctorId ?? current.doctor_id ?? undefined } };
  const found = await slotPreferring(trx, actor.timeZone, sameDoctor, !opts.doctorId);
  if (isNoSlot(found)) return { ...found, ...ask };
  const claimed = await claimSlot(trx, found.slot, ask);
  if (claimed) return claimed;
  // An agent key that moves an appointment stamps its origin (the clinic sees what an agent did).
  const moved = await overlapAsNoSlot(moveAppointment(trx, current.id, { slot: found.slot, facilityId: cal.facility_id, origin: agentOrigin(actor) }), ask);
  if (isNoSlot(moved)) return moved;
  await recordRescheduled(trx, actor, current, moved);
  // The old time is free at once, and offered to the waitlist in this transaction.
  await offerFreedTime(trx, actor, current, moved);
  return moved;
}

export async function rescheduleAppointmentViaApi(db: Db, actor: Actor, id: string, input: RescheduleInput, expected: number | null): Promise<AppointmentRow> {
  return answeringNoSlot(db, actor, () => db.transaction().execute((trx) => unlessNoSlot(rescheduleIn(trx, actor, id, input, expected))));
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
    return cancelLocked(trx, actor, current);
  });
}

/**
 * The cancellation itself, on an appointment locked in `trx`: `appointment.cancelled`, the time
 * free at once and offered to the waitlist in this transaction. The API cancel above reaches it
 * under the calendar's rules; a patient's answer to the clinic's own confirmation request
 * (src/modules/confirmations) reaches it directly: the clinic asked, so neither its notice
 * nor the calendar's origin stands in the way of freeing the time.
 */
export async function cancelLocked(trx: Transaction, actor: Actor, current: AppointmentRow): Promise<AppointmentRow> {
  return setStatusInTx(trx, actor, current, 'cancelled', undefined, agentOrigin(actor) ?? undefined);
}

/** The patient confirms, on an appointment locked in `trx`: status `confirmed` and `appointment.confirmed`, as the agenda's status change. */
export async function confirmLocked(trx: Transaction, actor: Actor, current: AppointmentRow): Promise<AppointmentRow> {
  return setStatusInTx(trx, actor, current, 'confirmed');
}

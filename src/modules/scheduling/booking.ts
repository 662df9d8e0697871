/**
 * Booking through the API, under the rules of the calendar the appointment comes from
 * (rescheduling and cancelling: changes.ts). The overlap constraints of the appointments table
 * make exactly one of several parallel bookings of one slot win; the losers get
 * `409 no_availability`. The slot strategies are slots.ts; the SQL is the stores of calendars,
 * appointments and holds.
 */
import {
  type BookInput,
  bookingBodyIssues,
  type AppointmentRow,
  insertAppointment,
  insertAppointmentUnlessBusy,
  type AppointmentInsert,
  appointmentById,
  hasAppointment,
  liveAppointmentAt,
} from '../appointments/index.js';
import { ApiError, type ValidationIssue } from '../../core/errors.js';
import { refIssue } from '../../db/scoped.js';
import { assertBookableBy, type Slot, readCalendarAndPatient, type BusyQuery, type CalendarRow } from '../calendars/index.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { withCommitInLast } from '../../db/then-commit.js';
import { agentOrigin, type Actor } from '../../core/actor.js';
import { keyHoldOf, markHoldUsed, type HoldRow } from '../holds/index.js';
import {
  answeringNoSlot,
  claimSlot,
  heldSlot,
  isNoSlot,
  noSlot,
  overlapAsNoSlot,
  slotPreferring,
  soleSlot,
  takeSlot,
  unlessNoSlot,
  type NoSlot,
  type SlotAsk,
} from './slots.js';

/**
 * The booking's calendar, whole, and the verdict on its two references (`calendarId`,
 * `patientId`) as checkRefs gives it, from one statement instead of two (one round trip fewer). The calendar
 * is undefined when its reference is wrong or absent. `lockSole`: the statement also takes the
 * sole schedules' locks (soleSchedulesLock) for a booking whose doctor is `doctorId`; `soleLocked`
 * says whether it did.
 */
async function calendarAndPatient(
  trx: Transaction,
  who: Actor,
  calendarId: string | undefined,
  patientId: string,
  lockSole: { doctorId: string | undefined } | null,
): Promise<{ calendar: CalendarRow | undefined; issues: ValidationIssue[]; soleLocked: boolean }> {
  const { calendar, patient, soleLocked } = await readCalendarAndPatient(trx, who.clinicId, calendarId, patientId, lockSole);
  const issues: ValidationIssue[] = [];
  const calendarIssue = calendarId === undefined ? null : refIssue(who, { field: 'calendarId', table: 'calendars' }, calendar ?? undefined);
  if (calendarIssue) issues.push(calendarIssue);
  const patientIssue = refIssue(who, { field: 'patientId', table: 'patients' }, patient ?? undefined);
  if (patientIssue) issues.push(patientIssue);
  return { calendar: calendarId === undefined || calendarIssue || !calendar ? undefined : calendar, issues, soleLocked };
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

/** A calendar that takes no new patients refuses a patient with no appointment yet (cancelled ones do not count). */
async function assertTakesPatient(trx: Transaction, cal: CalendarRow, patientId: string): Promise<void> {
  if (cal.takes_new_patients) return;
  if (!(await hasAppointment(trx, cal.clinic_id, patientId)))
    throw ApiError.forbidden('new_patients_not_accepted', {}, 'Questo calendario non accetta nuovi pazienti.');
}

/** The hold of `holdId` if the key made it (locked), or an issue naming holdId. */
async function holdOf(trx: Transaction, who: Actor, holdId: string, issues: ValidationIssue[]): Promise<HoldRow | null> {
  const hold = who.keyId ? await keyHoldOf(trx, who.clinicId, who.keyId, holdId) : undefined;
  if (!hold) issues.push({ path: 'holdId', message: 'non è una prenotazione temporanea di questa chiave' });
  return hold ?? null;
}

/** A slot found for a booking: the ask it answers, and the query of its time when the insert reads it (soleSlot). */
interface Found {
  slot: Slot;
  ask: SlotAsk;
  busy: BusyQuery | null;
}

/** The slot of a booking without a hold: the one schedule's slot when its locks were taken, else a slot at a time. */
async function freeSlotOf(trx: Transaction, tz: string, ask: SlotAsk, soleLocked: boolean): Promise<Found | NoSlot> {
  if (soleLocked) {
    const sole = soleSlot(trx, tz, ask);
    return isNoSlot(sole) ? sole : { ...sole, ask };
  }
  const taken = await takeSlot(trx, tz, ask);
  return isNoSlot(taken) ? taken : { slot: taken.slot, ask, busy: null };
}

/**
 * The slot of a hold's booking. A live hold was checked against the notice when it was made: it
 * books the held slot at the hold's doctor (unless another doctor is asked for). An expired one
 * books its time while free, at its doctor, or at any doctor when that one is taken and none was
 * asked for: not takeSlot, since it may move to another doctor after its first read, and locks
 * taken for the first doctor would then come before the second's.
 */
async function heldSlotOf(trx: Transaction, tz: string, cal: CalendarRow, hold: HoldRow, doctorId: string | undefined): Promise<Found | NoSlot> {
  const live = hold.expires_at.getTime() > Date.now();
  const opts = { doctorId: doctorId ?? hold.doctor_id ?? undefined, excludeHoldId: hold.id, now: live ? hold.created_at : undefined };
  const ask = { cal, start: hold.start_at, opts };
  if (live && (opts.doctorId === undefined || opts.doctorId === hold.doctor_id)) {
    const slot = heldSlot(tz, ask, hold);
    return isNoSlot(slot) ? slot : { slot, ask, busy: null };
  }
  const found = await slotPreferring(trx, tz, ask, !doctorId);
  if (isNoSlot(found)) return found;
  return (await claimSlot(trx, found.slot, found.ask)) ?? { ...found, busy: null };
}

/** Missing or contradicting fields of a booking (with or without its hold). */
function bookingIssues(input: BookInput, hold: HoldRow | null): ValidationIssue[] {
  const issues = bookingBodyIssues(input);
  if (hold) {
    if (input.calendarId !== undefined && input.calendarId.toLowerCase() !== hold.calendar_id)
      issues.push({ path: 'calendarId', message: 'diverso da quello della prenotazione temporanea' });
    if (input.start !== undefined && new Date(input.start).getTime() !== hold.start_at.getTime())
      issues.push({ path: 'start', message: 'diverso da quello della prenotazione temporanea' });
  }
  return issues;
}

/** One attempt at a booking, in `trx` (see book); a NoSlot when its slot is not to be had. */
async function bookIn(trx: Transaction, who: Actor, input: BookInput, commits: boolean): Promise<{ row: AppointmentRow; replayed: boolean } | NoSlot> {
  const doctorId = input.doctorId?.toLowerCase();
  const issues: ValidationIssue[] = [];
  const hold = input.holdId ? await holdOf(trx, who, input.holdId, issues) : null;
  issues.push(...bookingIssues(input, hold));
  const calendarId = hold?.calendar_id ?? input.calendarId;
  // Without a hold, the calendar's statement may take the sole schedules' locks: such a
  // booking takes no other lock after it (a hold's may lock the schedules it moves to, claimSlot).
  const lockSole = input.holdId ? null : { doctorId };
  const { calendar: found, issues: refIssues, soleLocked } = await calendarAndPatient(trx, who, calendarId, input.patientId, lockSole);
  issues.push(...refIssues);
  if (found && doctorId && !found.doctor_ids.includes(doctorId)) issues.push({ path: 'doctorId', message: 'non è un medico di questo calendario' });
  if (issues.length > 0) throw ApiError.invalid('body', issues);
  if (hold?.appointment_id) {
    const used = await appointmentById(trx, hold.appointment_id);
    if (used.patient_id !== input.patientId.toLowerCase())
      throw ApiError.conflict('hold_used', { appointmentId: used.id }, 'La prenotazione temporanea è già stata usata per un altro paziente.');
    return { row: used, replayed: true };
  }
  const cal = found!;
  assertBookableBy(cal, who);
  await assertTakesPatient(trx, cal, input.patientId);
  const tz = who.timeZone;
  const taken = hold
    ? await heldSlotOf(trx, tz, cal, hold, doctorId)
    : await freeSlotOf(trx, tz, { cal, start: new Date(input.start!), opts: { doctorId } }, soleLocked);
  if (isNoSlot(taken)) return taken;
  const appointment = slotAppointment(cal, taken.slot, input.patientId, {
    origin: agentOrigin(who) ?? input.origin ?? 'api',
    type: input.type,
    category: input.category,
    title: input.title,
    reason: input.reason,
  });
  // Only a booking without a hold ends with its insert (a hold's records its appointment after).
  const ending = { commits: commits && !hold };
  const write = taken.busy ? insertAppointmentUnlessBusy(trx, who, appointment, taken.busy, ending) : insertAppointment(trx, who, appointment, ending);
  const row = await overlapAsNoSlot(write, taken.ask);
  if (isNoSlot(row)) return row;
  if (!row) return noSlot('slot_taken', taken.ask);
  if (hold) await markHoldUsed(trx, hold.id, row.id);
  return { row, replayed: false };
}

/**
 * A booking refused for its slot that this patient already has: their live appointment at that
 * calendar and start (and doctor, when one was named), booked by an earlier try of the same
 * request (a platform's retry after a timeout, a model's retry spelling its arguments another
 * way). Read only after the refusal, so a booking that goes through pays nothing for it.
 */
async function sameBooking(db: Db, who: Actor, input: BookInput, none: NoSlot): Promise<{ row: AppointmentRow; replayed: boolean } | null> {
  if (input.holdId) return null; // a hold's booking answers its used hold itself (bookIn)
  const row = await liveAppointmentAt(db, who.clinicId, {
    patientId: input.patientId.toLowerCase(),
    calendarId: none.cal.id,
    start: none.start,
    doctorId: input.doctorId?.toLowerCase(),
  });
  return row ? { row, replayed: true } : null;
}

/**
 * Books a free slot of a calendar through the API (or the slot of a hold). `replayed`: the
 * booking was made already (the hold was used for this patient, or the patient has a live
 * appointment at exactly that slot), and that appointment is answered again: nothing is written.
 */
export async function book(db: Db, who: Actor, input: BookInput): Promise<{ row: AppointmentRow; replayed: boolean }> {
  // `commits`: a booking without a hold ends with its insert, which then carries the COMMIT
  // (insertAppointment); where it refuses to, the booking runs again without, afresh.
  const attempt = (commits: boolean) => db.transaction().execute((trx) => unlessNoSlot(bookIn(trx, who, input, commits)));
  return answeringNoSlot(
    db,
    who,
    () => withCommitInLast(attempt),
    (none) => sameBooking(db, who, input, none),
  );
}

export async function bookAppointment(db: Db, who: Actor, input: BookInput): Promise<AppointmentRow> {
  return (await book(db, who, input)).row;
}

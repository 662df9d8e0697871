/**
 * Booking through the API, under the rules of the calendar the appointment comes from
 * (rescheduling and cancelling: src/modules/appointments/changes.ts). The overlap constraints of the appointments table make exactly one
 * of several parallel bookings of one slot win; the losers get `409 no_availability`.
 */
import type { BookInput } from '../appointments/schema.js';
import { sql, type Selectable } from 'kysely';
import { ApiError, type ValidationIssue } from '../../core/errors.js';
import { overlapReason, type AppointmentRow } from '../appointments/model.js';
import { refIssue, takesReferences } from '../../db/scoped.js';
import { insertAppointment, insertAppointmentUnlessBusy } from '../appointments/service.js';
import {
  bookableWindow,
  busyTimes,
  busyTimesQuery,
  freeSlots,
  slotAppointment,
  gridSlots,
  type CalendarRow,
  type Slot,
  type SlotOptions,
  type Window,
} from './service.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { prepared } from '../../db/prepared-statements.js';
import { withCommitInLast } from '../../db/then-commit.js';
import { agentOrigin, bookingChannel, type Actor } from '../../core/actor.js';
import type { SlotHoldsTable } from '../../db/tables/agenda.js';

const ALTERNATIVES = 5;
const ALTERNATIVES_SPAN_MS = 14 * 86_400_000;

export class NoSlot extends Error {
  constructor(readonly reason: 'slot_taken' | 'outside_availability') {
    super(reason);
  }
}

/** Up to five free slots nearest to `start` (before or after it). */
async function alternatives(db: Db, cal: CalendarRow, tz: string, start: Date, opts: SlotOptions): Promise<Slot[]> {
  const window = bookableWindow(cal, new Date(start.getTime() - ALTERNATIVES_SPAN_MS / 2), new Date(start.getTime() + ALTERNATIVES_SPAN_MS));
  if (!window) return [];
  const slots = await freeSlots(db, cal, tz, window, { ...opts, now: undefined });
  return slots
    .sort(
      (a, b) => Math.abs(Date.parse(a.start) - start.getTime()) - Math.abs(Date.parse(b.start) - start.getTime()) || Date.parse(a.start) - Date.parse(b.start),
    )
    .slice(0, ALTERNATIVES)
    .sort((a, b) => Date.parse(a.start) - Date.parse(b.start));
}

/** When the earliest live hold on the calendar's people at `start` ends (the time may free up then), or null. */
async function heldUntil(db: Db, cal: CalendarRow, start: Date, opts: SlotOptions): Promise<string | null> {
  const end = new Date(start.getTime() + cal.slot_minutes * 60_000);
  const doctors = opts.doctorId ? [opts.doctorId.toLowerCase()] : cal.doctor_ids;
  const busy = await busyTimes(db, cal.clinic_id, doctors, cal.chair_ids, start, end, opts);
  const holds = busy.filter((b) => b.expires_at !== null).map((b) => new Date(b.expires_at!).getTime());
  return holds.length ? new Date(Math.min(...holds)).toISOString() : null;
}

async function noAvailability(db: Db, cal: CalendarRow, tz: string, start: Date, reason: NoSlot['reason'], opts: SlotOptions): Promise<ApiError> {
  const until = reason === 'slot_taken' ? await heldUntil(db, cal, start, opts) : null;
  return new ApiError('no_availability', {
    reason,
    alternatives: await alternatives(db, cal, tz, start, opts),
    ...(until ? { heldUntil: until } : {}),
  });
}

/**
 * The calendar's rules for a slot starting at `start` (active, notice and horizon measured from
 * `now`, a start on its grid of working hours), checked in memory: the one-instant window the
 * slot's start falls in, or NoSlot `outside_availability`.
 */
function windowAt(cal: CalendarRow, tz: string, start: Date, now?: Date): Window {
  const window = bookableWindow(cal, start, new Date(start.getTime() + 1), now);
  if (!window || !gridSlots(cal, tz, window).some((s) => s.start.getTime() === start.getTime())) throw new NoSlot('outside_availability');
  return window;
}

/** The free slot starting at `start`, or NoSlot saying why there is none. */
export async function slotAt(db: Db, cal: CalendarRow, tz: string, start: Date, opts: SlotOptions): Promise<Slot> {
  return (await slotAmong(db, cal, tz, start, opts, null)).slot;
}

/**
 * slotAt, and the free slots of `span` (a window around `start`: a hold's share of the calendar
 * is measured on its day, src/modules/holds/caps.ts) read by the same statement.
 */
async function slotAmong(db: Db, cal: CalendarRow, tz: string, start: Date, opts: SlotOptions, span: Window | null): Promise<{ slot: Slot; free: Slot[] }> {
  const window = windowAt(cal, tz, start, opts.now);
  const read = (span && bookableWindow(cal, span.from, span.to, opts.now)) || window;
  const free = await freeSlots(db, cal, tz, read, opts);
  const slot = free.find((s) => Date.parse(s.start) === start.getTime());
  if (!slot) throw new NoSlot('slot_taken');
  return { slot, free };
}

/**
 * The slot a live hold keeps, at its doctor and chair: the calendar's rules (active, window
 * and grid, measured from the hold's creation) are checked again, in memory; the time is not
 * read again. The hold was claimed under the schedule locks, so every hold or booking of that
 * time since has seen it and been refused (three statements fewer per booking, issue 15); an
 * appointment the clinic entered meanwhile in its own agenda meets the overlap constraints at
 * the insert, `409 slot_taken` as before.
 */
function heldSlot(cal: CalendarRow, tz: string, hold: HoldRow): Slot {
  windowAt(cal, tz, hold.start_at, hold.created_at);
  return { start: hold.start_at.toISOString(), end: hold.end_at.toISOString(), doctorId: hold.doctor_id, chairId: hold.chair_id };
}

/**
 * Takes the slot's doctor's and chair's schedule locks (0051_schedule_lock.sql) until commit,
 * then checks again that no appointment or live hold took that time meanwhile. Every writer of
 * either takes these locks first, so of two racing for one time the later one sees the
 * earlier one's commit here (on PGlite transactions are serialized anyway).
 */
export async function claimSlot(trx: Transaction, clinicId: string, slot: Slot, opts: SlotOptions): Promise<void> {
  await lockSchedules(trx, [slot.doctorId, slot.chairId]);
  const busy = await busyTimes(
    trx,
    clinicId,
    slot.doctorId ? [slot.doctorId] : [],
    slot.chairId ? [slot.chairId] : [],
    new Date(slot.start),
    new Date(slot.end),
    opts,
  );
  if (busy.length > 0) throw new NoSlot('slot_taken');
}

/** Takes these doctors' and chairs' schedule locks until commit, in one order (lock_schedules). */
async function lockSchedules(trx: Transaction, ids: Array<string | null>): Promise<void> {
  await prepared(sql`SELECT lock_schedules(${ids.filter((x) => x !== null)}::uuid[])`).execute(trx);
}

/**
 * The doctor and the chair that alone can take a slot of `cal` with these options, when there
 * is one of each at most (a calendar of one doctor, or a request that names its doctor; no
 * chair or one): their locks can be taken before the time is read, and that one read, which no
 * other write of their time can change until commit, both finds the slot and replaces the
 * check claimSlot makes after its locks (one statement fewer per booking or hold, issue 20).
 */
function soleSchedules(cal: CalendarRow, opts: SlotOptions): Array<string | null> | null {
  const doctors = opts.doctorId ? [opts.doctorId] : cal.doctor_ids;
  if (doctors.length !== 1 || cal.chair_ids.length > 1) return null;
  return [doctors[0]!, cal.chair_ids[0] ?? null];
}

/**
 * soleSchedules in SQL, for the statement that reads the calendar `c` (calendarAndPatient): takes
 * the sole doctor's and chair's locks there, when the request's doctor (`doctorId`, or none) is
 * one of the calendar's, and answers whether it did. The locks then come one statement earlier
 * (issue 20), still before the statement that reads the time.
 */
function soleSchedulesLock(doctorId: string | undefined) {
  const doctor = doctorId ?? null;
  return sql<boolean | null>`CASE
    WHEN cardinality(c.chair_ids) <= 1
     AND (${doctor}::uuid = ANY(c.doctor_ids) OR (${doctor}::uuid IS NULL AND cardinality(c.doctor_ids) = 1))
    THEN (SELECT true FROM lock_schedules(ARRAY[coalesce(${doctor}::uuid, c.doctor_ids[1]), c.chair_ids[1]]))
  END`;
}

/**
 * The free slot at `start`, taken: its doctor's and chair's schedule locks held until commit,
 * and its time read under them (soleSchedules), or else found, locked and checked again
 * (claimSlot); with the free slots of `span` the same read found (slotAmong). Only for a transaction that takes no other schedule lock after it: two lock
 * calls in one transaction can deadlock with another's (lock_schedules orders the ids of one call).
 */
export async function takeSlot(
  trx: Transaction,
  clinicId: string,
  cal: CalendarRow,
  tz: string,
  start: Date,
  opts: SlotOptions,
  span: Window | null = null,
): Promise<{ slot: Slot; free: Slot[] }> {
  const sole = soleSchedules(cal, opts);
  if (sole) {
    await lockSchedules(trx, sole);
    return slotAmong(trx, cal, tz, start, opts, span);
  }
  const found = await slotAmong(trx, cal, tz, start, opts, span);
  await claimSlot(trx, clinicId, found.slot, opts);
  return found;
}

/**
 * The slot at `start` of a calendar whose sole schedules the calendar's statement locked
 * (soleSchedulesLock), with the query of the time taken on them: the calendar's rules are
 * checked in memory here, and the insert itself reads that time (insertAppointmentUnlessBusy),
 * one statement fewer than takeSlot. The slot is the one freeSlots would find: the sole doctor
 * and chair, if their time is free.
 */
function soleSlot(trx: Transaction, cal: CalendarRow, tz: string, start: Date, opts: SlotOptions): { slot: Slot; busy: ReturnType<typeof busyTimesQuery> } {
  const sole = soleSchedules(cal, opts);
  // soleSchedulesLock is soleSchedules in SQL: locks taken where this finds none are a bug.
  if (!sole) throw new Error('book: schedule locks taken for a calendar without sole schedules');
  windowAt(cal, tz, start, opts.now);
  const end = new Date(start.getTime() + cal.slot_minutes * 60_000);
  const [doctorId, chairId] = sole;
  const busy = busyTimesQuery(trx, cal.clinic_id, doctorId ? [doctorId] : [], cal.chair_ids, start, end, opts);
  return { slot: { start: start.toISOString(), end: end.toISOString(), doctorId: doctorId ?? null, chairId: chairId ?? null }, busy };
}

/** Runs a booking command; no slot (or a lost race on the constraint) becomes 409 no_availability with alternatives. */
export async function booking<T>(
  db: Db,
  actor: Actor,
  start: () => Date,
  calOf: () => CalendarRow | null,
  opts: () => SlotOptions,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    const reason = error instanceof NoSlot ? error.reason : overlapReason(error) ? 'slot_taken' : null;
    const cal = calOf();
    if (!reason || !cal) throw error;
    throw await noAvailability(db, cal, actor.timeZone, start(), reason, opts());
  }
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
 * The booking's calendar, whole, and the verdict on its two references (`calendarId`,
 * `patientId`) as checkRefs gives it, from one statement instead of two (issue 20). The calendar
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
  const { rows } = await prepared(sql<CalendarRow & { ref_patient_id: string | null; ref_patient_facility_id: string | null; sole_locked: boolean | null }>`
    SELECT c.*, p.id AS ref_patient_id, p.facility_id AS ref_patient_facility_id,
      ${lockSole ? soleSchedulesLock(lockSole.doctorId) : sql`NULL::boolean`} AS sole_locked
    FROM (VALUES (1)) AS one (x)
    LEFT JOIN calendars c ON c.id = ${calendarId ?? null} AND c.clinic_id = ${who.clinicId} AND ${takesReferences('calendars', 'c')}
    LEFT JOIN patients p ON p.id = ${patientId} AND p.clinic_id = ${who.clinicId} AND ${takesReferences('patients', 'p')}`).execute(trx);
  const { ref_patient_id, ref_patient_facility_id, sole_locked, ...calendar } = rows[0]!;
  const issues: ValidationIssue[] = [];
  const calendarIssue =
    calendarId === undefined ? null : refIssue(who, { field: 'calendarId', table: 'calendars' }, calendar.id === null ? undefined : calendar);
  if (calendarIssue) issues.push(calendarIssue);
  const patient = ref_patient_id === null ? undefined : { id: ref_patient_id, facility_id: ref_patient_facility_id };
  const patientIssue = refIssue(who, { field: 'patientId', table: 'patients' }, patient);
  if (patientIssue) issues.push(patientIssue);
  return { calendar: calendarId === undefined || calendarIssue ? undefined : calendar, issues, soleLocked: sole_locked === true };
}

/** A calendar that takes no new patients refuses a patient with no appointment yet (cancelled ones do not count). */
async function assertTakesPatient(trx: Transaction, cal: CalendarRow, patientId: string): Promise<void> {
  if (cal.takes_new_patients) return;
  const seen = await trx
    .selectFrom('appointments')
    .select('id')
    .where('clinic_id', '=', cal.clinic_id)
    .where('patient_id', '=', patientId)
    .where('status', '<>', 'cancelled')
    .limit(1)
    .executeTakeFirst();
  if (!seen) throw ApiError.forbidden('new_patients_not_accepted', {}, 'Questo calendario non accetta nuovi pazienti.');
}

type HoldRow = Selectable<SlotHoldsTable>;

/** The hold of `holdId` if the key made it (locked), or an issue naming holdId. */
async function holdOf(trx: Transaction, who: Actor, holdId: string, issues: ValidationIssue[]): Promise<HoldRow | null> {
  const hold = who.keyId
    ? await trx
        .selectFrom('slot_holds')
        .selectAll()
        .where('id', '=', holdId)
        .where('clinic_id', '=', who.clinicId)
        .where('api_key_id', '=', who.keyId)
        .forUpdate()
        .executeTakeFirst()
    : undefined;
  if (!hold) issues.push({ path: 'holdId', message: 'non è una prenotazione temporanea di questa chiave' });
  return hold ?? null;
}

/**
 * Books a free slot of a calendar through the API (or the slot of a hold). `replayed`: the
 * hold was already used for this patient, and its appointment is answered again.
 */
export async function book(db: Db, who: Actor, input: BookInput): Promise<{ row: AppointmentRow; replayed: boolean }> {
  let start = new Date(input.start ?? 0);
  let cal: CalendarRow | null = null;
  let opts: SlotOptions = { doctorId: input.doctorId?.toLowerCase() };
  // `commits`: a booking without a hold ends with its insert, which then carries the COMMIT
  // (insertAppointment); where it refuses to, the booking runs again without. Only a hold's
  // booking changes `start` and `opts`, and it never commits that way: the retry starts afresh.
  const attempt = (commits: boolean) =>
    db.transaction().execute(async (trx) => {
      const issues: ValidationIssue[] = [];
      const hold = input.holdId ? await holdOf(trx, who, input.holdId, issues) : null;
      if (!input.holdId) {
        if (input.calendarId === undefined) issues.push({ path: 'calendarId', message: 'obbligatorio senza holdId' });
        if (input.start === undefined) issues.push({ path: 'start', message: 'obbligatorio senza holdId' });
      }
      if (hold) {
        if (input.calendarId !== undefined && input.calendarId.toLowerCase() !== hold.calendar_id)
          issues.push({ path: 'calendarId', message: 'diverso da quello della prenotazione temporanea' });
        if (input.start !== undefined && new Date(input.start).getTime() !== hold.start_at.getTime())
          issues.push({ path: 'start', message: 'diverso da quello della prenotazione temporanea' });
      }
      const calendarId = hold?.calendar_id ?? input.calendarId;
      // Without a hold, the calendar's statement may take the sole schedules' locks: such a
      // booking takes no other lock after it (a hold's may lock the schedules it moves to, claimSlot).
      const lockSole = input.holdId ? null : { doctorId: opts.doctorId };
      const { calendar: found, issues: refIssues, soleLocked } = await calendarAndPatient(trx, who, calendarId, input.patientId, lockSole);
      issues.push(...refIssues);
      if (found && opts.doctorId && !found.doctor_ids.includes(opts.doctorId))
        issues.push({ path: 'doctorId', message: 'non è un medico di questo calendario' });
      if (issues.length > 0) throw ApiError.invalid('body', issues);
      if (hold?.appointment_id) {
        const used = await trx.selectFrom('appointments').selectAll().where('id', '=', hold.appointment_id).executeTakeFirstOrThrow();
        if (used.patient_id !== input.patientId.toLowerCase())
          throw ApiError.conflict('hold_used', { appointmentId: used.id }, 'La prenotazione temporanea è già stata usata per un altro paziente.');
        return { row: used, replayed: true };
      }
      assertBookableBy(found!, who);
      await assertTakesPatient(trx, found!, input.patientId);
      cal = found!;
      const live = hold !== null && hold.expires_at.getTime() > Date.now();
      if (hold) {
        start = hold.start_at;
        // A live hold was checked against the notice when it was made; it books at the hold's doctor.
        opts = { ...opts, doctorId: opts.doctorId ?? hold.doctor_id ?? undefined, excludeHoldId: hold.id, now: live ? hold.created_at : undefined };
      }
      const tz = who.timeZone;
      let slot: Slot;
      /** The time taken on the slot's schedules, when the insert reads it (soleSlot). */
      let busy: ReturnType<typeof busyTimesQuery> | null = null;
      if (hold && live && (opts.doctorId === undefined || opts.doctorId === hold.doctor_id)) {
        slot = heldSlot(cal, tz, hold);
      } else if (!hold && soleLocked) {
        ({ slot, busy } = soleSlot(trx, cal, tz, start, opts));
      } else if (!hold) {
        ({ slot } = await takeSlot(trx, who.clinicId, cal, tz, start, opts));
      } else {
        // Not takeSlot: an expired hold's booking may move to another doctor after its first
        // read, and locks taken for the first doctor would then come before the second's.
        try {
          slot = await slotAt(trx, cal, tz, start, opts);
        } catch (error) {
          // An expired hold's doctor may be taken while another doctor is free: any doctor will do.
          if (input.doctorId || !(error instanceof NoSlot) || error.reason !== 'slot_taken') throw error;
          opts = { ...opts, doctorId: undefined };
          slot = await slotAt(trx, cal, tz, start, opts);
        }
        await claimSlot(trx, who.clinicId, slot, opts);
      }
      const appointment = slotAppointment(cal, slot, input.patientId, {
        origin: agentOrigin(who) ?? input.origin ?? 'api',
        type: input.type,
        category: input.category,
        title: input.title,
        reason: input.reason,
      });
      // Only a booking without a hold ends with its insert (a hold's records its appointment after).
      const ending = { commits: commits && !hold };
      const row = busy ? await insertAppointmentUnlessBusy(trx, who, appointment, busy, ending) : await insertAppointment(trx, who, appointment, ending);
      if (!row) throw new NoSlot('slot_taken');
      if (hold) await trx.updateTable('slot_holds').set({ appointment_id: row.id }).where('id', '=', hold.id).execute();
      return { row, replayed: false };
    });
  return booking(
    db,
    who,
    () => start,
    () => cal,
    () => opts,
    () => withCommitInLast(attempt),
  );
}

export async function bookAppointment(db: Db, who: Actor, input: BookInput): Promise<AppointmentRow> {
  return (await book(db, who, input)).row;
}

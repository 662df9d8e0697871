/**
 * The calendars' SQL (booking rules and the reads of a slot): calendar rows, the query of the
 * time taken on doctors and chairs (busyTimesQuery, which every reader of free time uses), the
 * schedule locks, and the reads a booking makes in its first statement. The rules that use them
 * are service.ts and src/modules/scheduling (booking.ts, slots.ts).
 */
import { randomUUID } from 'node:crypto';
import { sql, type Selectable, type SqlBool } from 'kysely';
import type { Db, Transaction } from '../../db/transaction.js';
import type { CalendarsTable } from '../../db/tables/agenda.js';
import { BLOCKING_EXCLUDED } from '../../core/agenda.js';
import { takesReferences } from '../../db/scoped.js';
import { updatedPage } from '../../db/keyset.js';
import { facilityVisible } from '../../db/tenant.js';
import type { Actor } from '../../core/actor.js';
import { prepared } from '../../db/prepared-statements.js';
import type { CalendarChanges, CalendarListQuery, NewCalendar } from './schema.js';

export type CalendarRow = Selectable<CalendarsTable>;

export type { Slot } from '../../core/agenda.js';

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

export async function insertCalendar(trx: Transaction, clinicId: string, input: NewCalendar): Promise<CalendarRow> {
  return trx
    .insertInto('calendars')
    .values({
      id: randomUUID(),
      clinic_id: clinicId,
      facility_id: input.facilityId,
      name: input.name,
      slot_minutes: input.slotMinutes,
      working_hours: JSON.stringify(input.workingHours),
      doctor_ids: [...new Set(input.doctorIds)],
      ...calendarColumns(input),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Writes the fields sent (the row is locked by the caller) and bumps its version. */
export async function updateCalendarRow(trx: Transaction, id: string, input: CalendarChanges): Promise<CalendarRow> {
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
}

/** The clinic's calendar of this id, whatever the caller sees (an appointment's own calendar), or undefined. */
export async function calendarOfClinic(db: Db, clinicId: string, id: string): Promise<CalendarRow | undefined> {
  return db.selectFrom('calendars').selectAll().where('id', '=', id).where('clinic_id', '=', clinicId).executeTakeFirst();
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

interface BusyTime {
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

/**
 * busyTimes' query, for a statement that does more (a booking's insert, unless the time is busy).
 * A conflict is decided per doctor and per chair, not per calendar: no arm reads `calendar_id`,
 * because a calendar only groups the doctors and chairs it books, and one doctor or chair can be
 * in several (a dentist's check-ups and her surgery). What one calendar books, holds or offers
 * takes that time in every calendar sharing the doctor or the chair. The overlap constraints of
 * the appointments (migration 0020_agenda.sql) keep the same rule at the write.
 */
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
  // doctor that started before `to`, the whole of its history (a scan that grows with the
  // doctor's past appointments, against an index scan of the time asked for).
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

/** A busyTimesQuery, for a statement that does more with it. */
export type BusyQuery = ReturnType<typeof busyTimesQuery>;

/** Takes these doctors' and chairs' schedule locks until commit, in one order (lock_schedules). */
export async function lockSchedules(trx: Transaction, ids: Array<string | null>): Promise<void> {
  await prepared(sql`SELECT lock_schedules(${ids.filter((x) => x !== null)}::uuid[])`).execute(trx);
}

/**
 * soleSchedules in SQL, for the statement that reads the calendar `c` (readCalendarAndPatient): takes
 * the sole doctor's and chair's locks there, when the request's doctor (`doctorId`, or none) is
 * one of the calendar's, and answers whether it did. The locks then come one statement earlier
 * (one round trip fewer), still before the statement that reads the time.
 */
function soleSchedulesLock(doctorId: string | undefined) {
  const doctor = doctorId ?? null;
  return sql<boolean | null>`CASE
    WHEN cardinality(c.chair_ids) <= 1
     AND (${doctor}::uuid = ANY(c.doctor_ids) OR (${doctor}::uuid IS NULL AND cardinality(c.doctor_ids) = 1))
    THEN (SELECT true FROM lock_schedules(ARRAY[coalesce(${doctor}::uuid, c.doctor_ids[1]), c.chair_ids[1]]))
  END`;
}

/** What the booking's first statement read (readCalendarAndPatient). */
interface CalendarAndPatient {
  /** The calendar of that id in the clinic, if it takes references; null otherwise. */
  calendar: CalendarRow | null;
  /** The patient of that id in the clinic, if it takes references; null otherwise. */
  patient: { id: string; facility_id: string | null } | null;
  /** The statement took the sole schedules' locks (soleSchedulesLock). */
  soleLocked: boolean;
}

/**
 * The booking's calendar, whole, and its patient, from one statement instead of two (one round trip fewer).
 * `lockSole`: the statement also takes the sole schedules' locks (soleSchedulesLock) for a
 * booking whose doctor is `doctorId`.
 */
export async function readCalendarAndPatient(
  trx: Transaction,
  clinicId: string,
  calendarId: string | undefined,
  patientId: string,
  lockSole: { doctorId: string | undefined } | null,
): Promise<CalendarAndPatient> {
  const { rows } = await prepared(sql<CalendarRow & { ref_patient_id: string | null; ref_patient_facility_id: string | null; sole_locked: boolean | null }>`
    SELECT c.*, p.id AS ref_patient_id, p.facility_id AS ref_patient_facility_id,
      ${lockSole ? soleSchedulesLock(lockSole.doctorId) : sql`NULL::boolean`} AS sole_locked
    FROM (VALUES (1)) AS one (x)
    LEFT JOIN calendars c ON c.id = ${calendarId ?? null} AND c.clinic_id = ${clinicId} AND ${takesReferences('calendars', 'c')}
    LEFT JOIN patients p ON p.id = ${patientId} AND p.clinic_id = ${clinicId} AND ${takesReferences('patients', 'p')}`).execute(trx);
  const { ref_patient_id, ref_patient_facility_id, sole_locked, ...calendar } = rows[0]!;
  return {
    calendar: calendar.id === null ? null : calendar,
    patient: ref_patient_id === null ? null : { id: ref_patient_id, facility_id: ref_patient_facility_id },
    soleLocked: sole_locked === true,
  };
}

/** A page of the calendars the actor sees, by last modification, of a facility or of a doctor (GET /v1/calendars). */
export async function pageCalendars(db: Db, actor: Actor, q: CalendarListQuery) {
  let query = db.selectFrom('calendars').selectAll().where('clinic_id', '=', actor.clinicId).where(facilityVisible('facility_id', actor));
  if (q.facilityId) query = query.where('facility_id', '=', q.facilityId);
  if (q.doctorId) query = query.where(sql<boolean>`${q.doctorId}::uuid = ANY(doctor_ids)`);
  return updatedPage(query, {
    name: 'calendars',
    clinicId: actor.clinicId,
    secret: actor.cursorSecret,
    q,
    filters: [q.facilityId?.toLowerCase() ?? null, q.doctorId?.toLowerCase() ?? null],
  });
}

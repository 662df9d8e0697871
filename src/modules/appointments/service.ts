/**
 * Appointments (spec 2.2, 3.4, 4.1): the list and the detail of the API, and the back-office
 * commands (create, reschedule, status changes), each recording its event in its transaction.
 */
import type { Actor } from '../../core/actor.js';
import { randomUUID } from 'node:crypto';
import { sql, type Compilable } from 'kysely';
import { insertWhere } from '../../db/insert.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { keysetPage } from '../../db/keyset.js';
import { facilityVisible } from '../../db/tenant.js';
import { ApiError, type ValidationIssue } from '../../core/errors.js';
import { assertVersion } from '../../core/version.js';
import { assertSameEventData, recordEvent, recordEventIn } from '../../events/record.js';
import { lastStatement } from '../../db/then-commit.js';
import { checkRefs, findScoped, lockScoped } from '../../db/scoped.js';
import { prepared } from '../../db/prepared-statements.js';
import { AFTER_9999, APPOINTMENT_JSON, withYearsAfter9999 } from './list-json.js';
import { MOVABLE, STATUS_EVENTS, TRANSITIONS, overlapReason, type AppointmentRow, type AppointmentOrigin, type AppointmentStatus } from './model.js';
import { eventData } from './events.js';
import type { AppointmentChanges, ListQuery, NewAppointment } from './schema.js';
import { offerFreedTime } from '../waitlist/service.js';

export type { ListQuery } from './schema.js';

/** The list's filters, normalized: what a cursor is bound to, and part of a cached page's key. */
export function listFilters(q: ListQuery): string {
  const statuses = q.status ? [...new Set(q.status.split(','))].sort() : null;
  return JSON.stringify([
    q.updatedSince ?? null,
    q.from ?? null,
    q.to ?? null,
    q.facilityId?.toLowerCase() ?? null,
    q.doctorId?.toLowerCase() ?? null,
    q.patientId?.toLowerCase() ?? null,
    statuses,
  ]);
}

/**
 * A page of the list: each appointment as its JSON text (./list-json.ts), the ids of those whose
 * title or reason holds text (the read the access log names), and the cursor after the last.
 */
export async function listAppointments(db: Db, actor: Actor, q: ListQuery): Promise<{ items: string[]; loggedIds: string[]; nextCursor: string | null }> {
  const statuses = q.status ? [...new Set(q.status.split(','))] : null;
  const cursorScope = `appointments:${actor.clinicId}:${q.sort}:${listFilters(q)}`;
  const column = q.sort === 'start' ? 'start_at' : 'updated_at';

  // Only what the page answers: the notes are never in it (their text is not read at all).
  let query = db
    .selectFrom('appointments')
    .select([
      'id',
      APPOINTMENT_JSON.as('json'),
      AFTER_9999.as('after_9999'),
      sql<boolean>`title IS NOT NULL OR reason IS NOT NULL`.as('logged'),
      sql.ref(column).$castTo<Date>().as('at'),
    ])
    .where('clinic_id', '=', actor.clinicId)
    .where(facilityVisible('facility_id', actor));
  if (q.updatedSince) query = query.where('updated_at', '>=', new Date(q.updatedSince));
  if (q.from) query = query.where('start_at', '>=', new Date(q.from));
  if (q.to) query = query.where('start_at', '<', new Date(q.to));
  if (q.facilityId) query = query.where('facility_id', '=', q.facilityId);
  if (q.doctorId) query = query.where('doctor_id', '=', q.doctorId);
  if (q.patientId) query = query.where('patient_id', '=', q.patientId);
  if (statuses) query = query.where('status', 'in', statuses);
  // The page of the whole clinic (a sync's, in either order, from a cursor or an instant) is
  // prepared: planning its JSON (./list-json.ts) cost PostgreSQL a third of a page's CPU, and its
  // one plan, the clinic's index in the page's order, is right for every clinic. A page filtered
  // further, or of a key limited to facilities, may want another index for other values: planned each time.
  const unprepared = !!(q.from || q.to || q.facilityId || q.doctorId || q.patientId || statuses || actor.facilityIds);
  const page = await keysetPage(query, {
    columns: [column, 'id'],
    at: (r) => r.at,
    secret: actor.cursorSecret,
    scope: cursorScope,
    cursor: q.cursor,
    limit: q.limit,
    run: unprepared ? undefined : async (statement) => (await prepared(statement).execute(db)).rows,
  });
  return {
    items: page.items.map((r) => (r.after_9999 ? withYearsAfter9999(r.json) : r.json)),
    loggedIds: page.items.filter((r) => r.logged).map((r) => r.id),
    nextCursor: page.nextCursor,
  };
}

export async function findAppointment(db: Db, actor: Actor, id: string): Promise<AppointmentRow> {
  return findScoped(db, 'appointments', actor, id);
}

/** Row locked for update, in the caller's transaction. */
export async function lockAppointment(trx: Transaction, actor: Actor, id: string): Promise<AppointmentRow> {
  return lockScoped(trx, 'appointments', actor, id);
}

/** Runs a command; a violation of the overlap constraints becomes `409 conflict`. */
export async function withOverlapCheck<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    const reason = overlapReason(error);
    if (reason) {
      throw ApiError.conflict(
        reason,
        {},
        reason === 'doctor_busy' ? 'Il medico ha già un appuntamento in quell’orario.' : 'La poltrona è già occupata in quell’orario.',
      );
    }
    throw error;
  }
}

/** What an appointment may describe of itself; unset is null. */
interface AppointmentDetails {
  type?: string | null;
  category?: string | null;
  title?: string | null;
  reason?: string | null;
  notes?: string | null;
  clinicalNotes?: string | null;
  treatmentPlanId?: string | null;
}

function timeIssues(start: Date, end: Date): ValidationIssue[] {
  return end.getTime() > start.getTime() ? [] : [{ path: 'end', message: 'deve essere successivo a start' }];
}

/** What an appointment is born with, checked. */
export interface AppointmentInsert extends AppointmentDetails {
  patientId: string;
  facilityId: string | null;
  doctorId: string | null;
  chairId: string | null;
  calendarId: string | null;
  /** A Date or an ISO timestamp (a slot of the calendar). */
  start: Date | string;
  end: Date | string;
  status: AppointmentStatus;
  origin: AppointmentOrigin;
}

/**
 * The one INSERT of an appointment (the back office's and the API booking's), with its
 * `appointment.created` event in the same transaction. The overlap constraints may refuse
 * it: each caller maps that to its own answer (see README.md, "Overlaps").
 *
 * The insert's own statement records the event (recordEventIn; one round trip fewer, issue 20):
 * its data is built from the values inserted (ids lower-cased as PostgreSQL answers them, the
 * times set here), and under the tests compared with the row written. `commits`: the statement is
 * the transaction's last and carries its COMMIT (src/db/then-commit.ts); where the event was not
 * inserted at once, it fails instead and nothing is written (the caller runs it again without).
 */
export async function insertAppointment(
  trx: Transaction,
  actor: Actor,
  a: AppointmentInsert,
  { commits = false }: { commits?: boolean } = {},
): Promise<AppointmentRow> {
  return (await writeAppointment(trx, actor, a, { commits, unlessBusy: null }))!;
}

/**
 * insertAppointment, unless `busy` (a query of the time taken: busyTimesQuery) finds any: null
 * then, and nothing is written. The search is the insert's own statement (issue 20: a booking
 * whose schedules are locked needs no read of its time before), so it sees what every earlier
 * holder of those locks committed, and not the row it inserts. The statement is prepared with the
 * read in it: its kept (generic) plan reads the appointments through the doctor's overlap index
 * (doctor and time), as the plans made for the values do, and not through (clinic, doctor,
 * start), which would read the doctor's whole history (seen with `plan_cache_mode =
 * force_generic_plan` on a doctor of 100,000 appointments, alone and among 3,000 doctors of one
 * appointment each).
 */
export async function insertAppointmentUnlessBusy(
  trx: Transaction,
  actor: Actor,
  a: AppointmentInsert,
  busy: Compilable<unknown>,
  { commits = false }: { commits?: boolean } = {},
): Promise<AppointmentRow | null> {
  return writeAppointment(trx, actor, a, { commits, unlessBusy: busy });
}

async function writeAppointment(
  trx: Transaction,
  actor: Actor,
  a: AppointmentInsert,
  { commits, unlessBusy }: { commits: boolean; unlessBusy: Compilable<unknown> | null },
): Promise<AppointmentRow | null> {
  const { clinicId } = actor;
  const now = new Date();
  const id = (value: string | null) => value?.toLowerCase() ?? null;
  const values = {
    id: randomUUID(),
    clinic_id: clinicId,
    patient_id: a.patientId.toLowerCase(),
    facility_id: id(a.facilityId),
    doctor_id: id(a.doctorId),
    chair_id: id(a.chairId),
    calendar_id: id(a.calendarId),
    start_at: new Date(a.start),
    end_at: new Date(a.end),
    status: a.status,
    type: a.type ?? null,
    category: a.category ?? null,
    title: a.title ?? null,
    reason: a.reason ?? null,
    notes: a.notes ?? null,
    clinical_notes: a.clinicalNotes ?? null,
    origin: a.origin,
    treatment_plan_id: id(a.treatmentPlanId ?? null),
    created_at: now,
    updated_at: now,
  };
  const data = eventData(values);
  const event = recordEventIn(trx, { log: actor.log, clinicId, type: 'appointment.created', facilityId: values.facility_id, data });
  const insert = unlessBusy
    ? sql`WITH busy AS (${unlessBusy}), created AS (${insertWhere('appointments', values, sql<boolean>`NOT EXISTS (SELECT 1 FROM busy)`)})`
    : sql`WITH created AS (${trx.insertInto('appointments').values(values).returningAll()})`;
  const answer = sql`SELECT created.*, ${event.call} AS event_outcome FROM created`;
  const { rows } = await prepared(
    lastStatement<AppointmentRow & { event_outcome: string }>(insert, answer, { commits, refuseWhen: { event: sql`answer.event_outcome <> 'inserted'` } }),
  ).execute(trx);
  if (rows.length === 0) return null;
  const { event_outcome, ...row } = rows[0]!;
  assertSameEventData('appointment.created', data, () => eventData(row));
  await event.settle(trx, event_outcome);
  return row;
}

/** Back office: an appointment as the clinic enters it in its agenda (origin `manual` by default). */
export async function createAppointment(db: Db, actor: Actor, input: NewAppointment): Promise<AppointmentRow> {
  const start = new Date(input.start);
  const end = new Date(input.end);
  return withOverlapCheck(() =>
    db.transaction().execute(async (trx) => {
      const { issues, rows } = await checkRefs(trx, actor, [
        { field: 'patientId', table: 'patients', id: input.patientId },
        { field: 'facilityId', table: 'facilities', id: input.facilityId },
        { field: 'doctorId', table: 'doctors', id: input.doctorId },
        { field: 'chairId', table: 'chairs', id: input.chairId },
        { field: 'calendarId', table: 'calendars', id: input.calendarId },
        { field: 'treatmentPlanId', table: 'treatment_plans', id: input.treatmentPlanId, patientId: input.patientId },
      ]);
      issues.push(...timeIssues(start, end));
      if (issues.length > 0) throw ApiError.invalid('body', issues);
      const facilityId =
        input.facilityId ?? rows.get('chairId')?.facility_id ?? rows.get('calendarId')?.facility_id ?? rows.get('patientId')?.facility_id ?? null;
      return insertAppointment(trx, actor, {
        patientId: input.patientId,
        facilityId,
        doctorId: input.doctorId ?? null,
        chairId: input.chairId ?? null,
        calendarId: input.calendarId ?? null,
        start,
        end,
        status: input.status ?? 'scheduled',
        origin: input.origin ?? 'manual',
        type: input.type,
        category: input.category,
        title: input.title,
        reason: input.reason,
        notes: input.notes,
        clinicalNotes: input.clinicalNotes,
        treatmentPlanId: input.treatmentPlanId,
      });
    }),
  );
}

const MOVE_FIELDS = ['start', 'end', 'doctorId', 'chairId', 'facilityId'] as const;

/**
 * Back office: change an appointment. Moving it (time, doctor, chair or facility) records
 * `appointment.rescheduled` with `data.previous` (startTime, endTime, doctorId, chairId,
 * facilityId before the change); only appointments in draft, pending, scheduled, confirmed or
 * postponed can be moved (otherwise `409 conflict`, reason `not_reschedulable`).
 */
export async function updateAppointment(db: Db, actor: Actor, id: string, input: AppointmentChanges, expected: number | null): Promise<AppointmentRow> {
  // Ids are case-insensitive (spec 2.1): compare them in the database's lower-case form.
  const lower = (v: string | null | undefined) => (typeof v === 'string' ? v.toLowerCase() : v);
  const changes: AppointmentChanges = {
    ...input,
    doctorId: lower(input.doctorId),
    chairId: lower(input.chairId),
    facilityId: lower(input.facilityId),
    treatmentPlanId: lower(input.treatmentPlanId),
  };
  for (const key of ['doctorId', 'chairId', 'facilityId', 'treatmentPlanId'] as const) if (input[key] === undefined) delete changes[key];
  return withOverlapCheck(() =>
    db.transaction().execute(async (trx) => {
      const current = await lockAppointment(trx, actor, id);
      assertVersion(expected, current.version);
      const { issues } = await checkRefs(trx, actor, [
        { field: 'facilityId', table: 'facilities', id: changes.facilityId },
        { field: 'doctorId', table: 'doctors', id: changes.doctorId },
        { field: 'chairId', table: 'chairs', id: changes.chairId },
        { field: 'treatmentPlanId', table: 'treatment_plans', id: changes.treatmentPlanId, patientId: current.patient_id },
      ]);
      const start = changes.start !== undefined ? new Date(changes.start) : current.start_at;
      const end = changes.end !== undefined ? new Date(changes.end) : current.end_at;
      if (changes.start !== undefined || changes.end !== undefined) {
        for (const issue of timeIssues(start, end)) issues.push(changes.end !== undefined ? issue : { path: 'start', message: 'deve essere precedente a end' });
      }
      if (issues.length > 0) throw ApiError.invalid('body', issues);

      const moved =
        start.getTime() !== current.start_at.getTime() ||
        end.getTime() !== current.end_at.getTime() ||
        (changes.doctorId !== undefined && changes.doctorId !== current.doctor_id) ||
        (changes.chairId !== undefined && changes.chairId !== current.chair_id) ||
        (changes.facilityId !== undefined && changes.facilityId !== current.facility_id);
      if (moved && !MOVABLE.has(current.status)) throw ApiError.conflict('not_reschedulable', { status: current.status });

      const set: Record<string, unknown> = {};
      if (changes.start !== undefined) set.start_at = start;
      if (changes.end !== undefined) set.end_at = end;
      const columns: Record<string, string> = {
        facilityId: 'facility_id',
        doctorId: 'doctor_id',
        chairId: 'chair_id',
        treatmentPlanId: 'treatment_plan_id',
        type: 'type',
        category: 'category',
        title: 'title',
        reason: 'reason',
        notes: 'notes',
        clinicalNotes: 'clinical_notes',
        completionNotes: 'completion_notes',
      };
      for (const [field, column] of Object.entries(columns)) {
        const value = (changes as Record<string, unknown>)[field];
        if (value !== undefined) set[column] = value;
      }
      if (Object.keys(set).length === 0 && !MOVE_FIELDS.some((f) => changes[f] !== undefined)) return current;
      const row = await trx
        .updateTable('appointments')
        .set({ ...set, updated_at: sql`now()`, version: sql`version + 1` })
        .where('id', '=', current.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      if (moved) {
        await recordRescheduled(trx, actor, current, row);
        // The old time is free at once, and offered to the waitlist in this transaction (issue 36).
        await offerFreedTime(trx, actor, current, row);
      }
      return row;
    }),
  );
}

export async function recordRescheduled(trx: Transaction, actor: Actor, before: AppointmentRow, after: AppointmentRow): Promise<void> {
  const { clinicId } = actor;
  await recordEvent(trx, {
    log: actor.log,
    clinicId,
    type: 'appointment.rescheduled',
    facilityId: after.facility_id,
    data: {
      ...eventData(after),
      previous: {
        startTime: before.start_at.toISOString(),
        endTime: before.end_at.toISOString(),
        doctorId: before.doctor_id,
        chairId: before.chair_id,
        facilityId: before.facility_id,
      },
    },
  });
}

/** Moves an appointment to another status per TRANSITIONS, recording the status's event. */
export async function setStatusInTx(
  trx: Transaction,
  actor: Actor,
  current: AppointmentRow,
  status: AppointmentStatus,
  completionNotes?: string | null,
  /** An agent key's origin, stamped on what it cancels (issue 15). */
  origin?: AppointmentOrigin,
): Promise<AppointmentRow> {
  if (!TRANSITIONS[current.status as AppointmentStatus]?.includes(status)) {
    throw ApiError.conflict('invalid_transition', { from: current.status, to: status, allowed: TRANSITIONS[current.status as AppointmentStatus] ?? [] });
  }
  const row = await trx
    .updateTable('appointments')
    .set({
      status,
      ...(completionNotes !== undefined ? { completion_notes: completionNotes } : {}),
      ...(origin !== undefined ? { origin } : {}),
      updated_at: sql`now()`,
      version: sql`version + 1`,
    })
    .where('id', '=', current.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const type = STATUS_EVENTS[status as keyof typeof STATUS_EVENTS];
  if (type) await recordEvent(trx, { log: actor.log, clinicId: actor.clinicId, type, facilityId: row.facility_id, data: eventData(row) });
  // A cancellation frees its time: the waitlist is offered it in this transaction (issue 36).
  await offerFreedTime(trx, actor, current, row);
  return row;
}

export async function changeStatus(
  db: Db,
  actor: Actor,
  id: string,
  status: AppointmentStatus,
  completionNotes: string | null | undefined,
  expected: number | null,
): Promise<AppointmentRow> {
  return withOverlapCheck(() =>
    db.transaction().execute(async (trx) => {
      const current = await lockAppointment(trx, actor, id);
      assertVersion(expected, current.version);
      return setStatusInTx(trx, actor, current, status, completionNotes);
    }),
  );
}

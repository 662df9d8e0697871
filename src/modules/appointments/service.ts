/**
 * Appointments (spec 2.2, 3.4, 4.1): the list and the detail of the API, and the back-office
 * commands (create, reschedule, status changes), each recording its event in its transaction.
 */
import type { Actor } from '../../core/actor.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { ApiError, type ValidationIssue } from '../../core/errors.js';
import { assertVersion } from '../../core/version.js';
import { recordEvent } from '../../events/record.js';
import { checkRefs, findScoped, lockScoped } from '../../db/scoped.js';
import { MOVABLE, STATUS_EVENTS, TRANSITIONS, overlapReason, type AppointmentRow, type AppointmentOrigin, type AppointmentStatus } from './model.js';
import { eventData } from './events.js';
import { appointmentBodyIssues, endAfterStart } from './checks.js';
import type { AppointmentChanges, ListQuery, NewAppointment } from './schema.js';
import { listPage, updateRow, writeAppointment, type AppointmentInsert, type BusyQuery } from './store.js';
import { offerFreedTime } from '../waitlist/offers.js';

export type { ListQuery } from './schema.js';
export type { AppointmentInsert } from './store.js';

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
 * A page of the list: each appointment as its JSON text, the ids of those whose title or reason
 * holds text (the read the access log names), and the cursor after the last, bound to the
 * clinic, the order and the filters.
 */
export async function listAppointments(db: Db, actor: Actor, q: ListQuery): Promise<{ items: string[]; loggedIds: string[]; nextCursor: string | null }> {
  return listPage(db, actor, q, `appointments:${actor.clinicId}:${q.sort}:${listFilters(q)}`);
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

function timeIssues(start: Date, end: Date): ValidationIssue[] {
  return endAfterStart(start.getTime(), end.getTime());
}

/**
 * The one INSERT of an appointment (the back office's and the API booking's), with its
 * `appointment.created` event in the same transaction (store.ts writeAppointment). The overlap
 * constraints may refuse it: each caller maps that to its own answer (see README.md,
 * "Overlaps"). `commits`: the insert carries the COMMIT (src/db/then-commit.ts).
 */
export async function insertAppointment(
  trx: Transaction,
  actor: Actor,
  a: AppointmentInsert,
  { commits = false }: { commits?: boolean } = {},
): Promise<AppointmentRow> {
  const written = await writeAppointment(trx, actor, a, { commits, unlessBusy: null });
  if (written.kind !== 'created') throw new Error('insertAppointment: an insert without a busy query found the time busy');
  return written.row;
}

/**
 * insertAppointment, unless `busy` (a query of the time taken: busyTimesQuery) finds any: null
 * then, and nothing is written. The search is the insert's own statement (store.ts says why).
 */
export async function insertAppointmentUnlessBusy(
  trx: Transaction,
  actor: Actor,
  a: AppointmentInsert,
  busy: BusyQuery,
  { commits = false }: { commits?: boolean } = {},
): Promise<AppointmentRow | null> {
  const written = await writeAppointment(trx, actor, a, { commits, unlessBusy: busy });
  return written.kind === 'created' ? written.row : null;
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
      issues.push(...appointmentBodyIssues(input));
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
      const row = await updateRow(trx, current.id, set);
      if (moved) {
        await recordRescheduled(trx, actor, current, row);
        // The old time is free at once, and offered to the waitlist in this transaction.
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
  /** An agent key's origin, stamped on what it cancels (the clinic sees what an agent did). */
  origin?: AppointmentOrigin,
): Promise<AppointmentRow> {
  if (!TRANSITIONS[current.status as AppointmentStatus]?.includes(status)) {
    throw ApiError.conflict('invalid_transition', { from: current.status, to: status, allowed: TRANSITIONS[current.status as AppointmentStatus] ?? [] });
  }
  const row = await updateRow(trx, current.id, {
    status,
    ...(completionNotes !== undefined ? { completion_notes: completionNotes } : {}),
    ...(origin !== undefined ? { origin } : {}),
  });
  const type = STATUS_EVENTS[status as keyof typeof STATUS_EVENTS];
  if (type) await recordEvent(trx, { log: actor.log, clinicId: actor.clinicId, type, facilityId: row.facility_id, data: eventData(row) });
  // A cancellation frees its time: the waitlist is offered it in this transaction.
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

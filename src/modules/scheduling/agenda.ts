/**
 * The back office's agenda commands (enter, change, change status), each recording its event in
 * its transaction. A change that frees an appointment's time (a move, a cancellation) offers it
 * to the waitlist in the same transaction (offers.ts).
 */
import type { Actor } from '../../core/actor.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { ApiError, type ValidationIssue } from '../../core/errors.js';
import { assertVersion } from '../../core/version.js';
import { recordEvent } from '../../events/record.js';
import { checkRefs } from '../../db/scoped.js';
import {
  MOVABLE,
  STATUS_EVENTS,
  TRANSITIONS,
  type AppointmentRow,
  type AppointmentOrigin,
  type AppointmentStatus,
  eventData,
  appointmentBodyIssues,
  endAfterStart,
  type AppointmentChanges,
  type NewAppointment,
  updateRow,
  insertAppointment,
  lockAppointment,
  recordRescheduled,
  withOverlapCheck,
} from '../appointments/index.js';
import { refreshPatientRecall } from '../recalls/index.js';
import { offerFreedTime } from './offers.js';

/**
 * Every write of an appointment that can make or change a completed visit passes here, in its
 * transaction: entered as completed (an imported history), moved to completed, or a completed
 * visit's category, type or start changed. The recall worklist learns of it at once instead of
 * at the hourly refresh (src/modules/recalls/README.md).
 */
async function visitWritten(trx: Transaction, actor: Actor, before: AppointmentRow | null, after: AppointmentRow): Promise<void> {
  if (after.status !== 'completed') return;
  const changed =
    before === null ||
    before.status !== after.status ||
    before.category !== after.category ||
    before.type !== after.type ||
    before.start_at.getTime() !== after.start_at.getTime();
  if (changed) await refreshPatientRecall(trx, actor.clinicId, after.patient_id);
}

function timeIssues(start: Date, end: Date): ValidationIssue[] {
  return endAfterStart(start.getTime(), end.getTime());
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
      const row = await insertAppointment(trx, actor, {
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
      await visitWritten(trx, actor, null, row);
      return row;
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
      await visitWritten(trx, actor, current, row);
      if (moved) {
        await recordRescheduled(trx, actor, current, row);
        // The old time is free at once, and offered to the waitlist in this transaction.
        await offerFreedTime(trx, actor, current, row);
      }
      return row;
    }),
  );
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
  await visitWritten(trx, actor, current, row);
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

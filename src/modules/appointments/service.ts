/**
 * Appointments (spec 2.2, 3.4, 4.1): the list and the detail of the API, the one INSERT of an
 * appointment and its rescheduled event. The commands that take or free an appointment's time
 * are src/modules/scheduling.
 */
import type { Actor } from '../../core/actor.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { ApiError } from '../../core/errors.js';
import { recordEvent } from '../../events/record.js';
import { findScoped, lockScoped } from '../../db/scoped.js';
import { overlapReason, type AppointmentRow } from './model.js';
import { eventData } from './events.js';
import type { ListQuery } from './schema.js';
import { listPage, writeAppointment, type AppointmentInsert, type BusyQuery } from './store.js';

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

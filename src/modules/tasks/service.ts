/** Tasks (spec 2.9, 3.6, 4.7.1): back-office creation, the API list, detail and update. */
import type { Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import { assertVersion } from '../../core/version.js';
import { recordEvent } from '../../events/record.js';
import type { EventData } from './events.js';
import { checkRefs, findScoped, lockScoped } from '../../db/scoped.js';
import type { Db, Transaction } from '../../db/transaction.js';
import type { NewTask, TaskChanges, TaskListQuery, TaskView } from './schema.js';
import { insertTaskRow, listPage, updateTaskRow, type TaskColumns, type TaskRow } from './store.js';

export function taskView(row: TaskRow): TaskView {
  return {
    id: row.id,
    title: row.title,
    status: row.status,
    dueDate: row.due_date?.toISOString() ?? null,
    assigneeId: row.assignee_id,
    patientId: row.patient_id,
    facilityId: row.facility_id,
    type: row.type,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Event data: ids, status, type and dates; the title is free text and stays out. */
function eventData(row: TaskRow): EventData<'task.created'> {
  const v = taskView(row);
  return {
    id: v.id,
    status: v.status,
    type: v.type,
    dueDate: v.dueDate,
    assigneeId: v.assigneeId,
    patientId: v.patientId,
    facilityId: v.facilityId,
    createdAt: v.createdAt,
    updatedAt: v.updatedAt,
  };
}

export async function createTask(db: Db, actor: Actor, input: NewTask): Promise<TaskRow> {
  // A key limited to facilities could not see a task of the whole clinic it made: it names one.
  if (actor.facilityIds !== null && !input.facilityId && !input.patientId) {
    throw ApiError.invalid('body', [{ path: 'facilityId', message: 'obbligatorio per una chiave limitata a delle sedi (o indica patientId)' }]);
  }
  return db.transaction().execute((trx) => insertTask(trx, actor, input));
}

/** A task and its `task.created` event, inside the caller's transaction (a voice handoff's callback, the back office). */
export async function insertTask(trx: Transaction, actor: Actor, input: NewTask): Promise<TaskRow> {
  const { issues, rows } = await checkRefs(trx, actor, [
    { field: 'assigneeId', table: 'staff_profiles', id: input.assigneeId },
    { field: 'patientId', table: 'patients', id: input.patientId },
    { field: 'facilityId', table: 'facilities', id: input.facilityId },
  ]);
  if (issues.length > 0) throw ApiError.invalid('body', issues);
  const status = input.status ?? 'todo';
  const row = await insertTaskRow(trx, actor.clinicId, {
    facility_id: input.facilityId ?? rows.get('patientId')?.facility_id ?? null,
    patient_id: input.patientId ?? null,
    title: input.title,
    status,
    due_date: input.dueDate ?? null,
    assignee_id: input.assigneeId ?? null,
    type: input.type ?? 'manual',
    completed_at: status === 'done' ? 'now' : null,
  });
  await recordEvent(trx, { log: actor.log, clinicId: actor.clinicId, type: 'task.created', facilityId: row.facility_id, data: eventData(row) });
  if (status === 'done')
    await recordEvent(trx, { log: actor.log, clinicId: actor.clinicId, type: 'task.completed', facilityId: row.facility_id, data: eventData(row) });
  return row;
}

export async function findTask(db: Db, actor: Actor, id: string): Promise<TaskRow> {
  return findScoped(db, 'tasks', actor, id);
}

export async function listTasks(db: Db, actor: Actor, q: TaskListQuery): Promise<{ data: TaskView[]; nextCursor: string | null }> {
  const page = await listPage(db, actor, q);
  return { data: page.items.map(taskView), nextCursor: page.nextCursor };
}

/** Only the fields sent change; null clears dueDate or assigneeId; `task.completed` when it becomes done. */
export async function updateTask(db: Db, actor: Actor, id: string, changes: TaskChanges, expected: number | null): Promise<TaskRow> {
  return db.transaction().execute(async (trx) => {
    const current = await lockScoped(trx, 'tasks', actor, id);
    const { issues } = await checkRefs(trx, actor, [{ field: 'assigneeId', table: 'staff_profiles', id: changes.assigneeId }]);
    if (issues.length > 0)
      throw ApiError.invalid(
        'body',
        issues.map((i) => ({ ...i, message: 'non è un profilo attivo di questo studio' })),
      );
    assertVersion(expected, current.version);
    const set: TaskColumns = {};
    if (changes.title !== undefined) set.title = changes.title;
    if (changes.status !== undefined) {
      set.status = changes.status;
      if (changes.status === 'done' && current.status !== 'done') set.completed_at = 'now';
      if (changes.status !== 'done') set.completed_at = null;
    }
    if (changes.dueDate !== undefined) set.due_date = changes.dueDate === null ? null : new Date(changes.dueDate);
    if (changes.assigneeId !== undefined) set.assignee_id = changes.assigneeId;
    const row = await updateTaskRow(trx, id, set);
    if (row.status === 'done' && current.status !== 'done') {
      await recordEvent(trx, { log: actor.log, clinicId: actor.clinicId, type: 'task.completed', facilityId: row.facility_id, data: eventData(row) });
    }
    return row;
  });
}

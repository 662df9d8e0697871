/** The tasks' store: the insert, the list's page and the update. The rules are service.ts's. */
import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import { updatedPage } from '../../db/keyset.js';
import type { TasksTable } from '../../db/tables/agenda.js';
import { facilityVisible } from '../../db/tenant.js';
import type { Db, Transaction } from '../../db/transaction.js';
import type { Actor } from '../../core/actor.js';
import type { TaskListQuery } from './schema.js';

export type TaskRow = Selectable<TasksTable>;

/** A task's columns; `completed_at: 'now'` stamps the database's time of the write. */
export interface TaskColumns {
  title?: string;
  status?: 'todo' | 'in_progress' | 'done';
  completed_at?: 'now' | null;
  due_date?: Date | string | null;
  assignee_id?: string | null;
}

const completedAt = (value: 'now' | null) => (value === 'now' ? sql<Date>`now()` : null);

export async function insertTaskRow(
  trx: Transaction,
  clinicId: string,
  task: Required<Pick<TaskColumns, 'title' | 'status' | 'completed_at'>> & {
    facility_id: string | null;
    patient_id: string | null;
    due_date: string | null;
    assignee_id: string | null;
    type: string;
  },
): Promise<TaskRow> {
  return trx
    .insertInto('tasks')
    .values({
      id: randomUUID(),
      clinic_id: clinicId,
      facility_id: task.facility_id,
      patient_id: task.patient_id,
      title: task.title,
      status: task.status,
      due_date: task.due_date,
      assignee_id: task.assignee_id,
      type: task.type,
      completed_at: completedAt(task.completed_at),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A page of the clinic's tasks the actor sees, by last change, with the list's filters (each signed into its cursor). */
export async function listPage(db: Db, actor: Actor, q: TaskListQuery): Promise<{ items: TaskRow[]; nextCursor: string | null }> {
  let query = db.selectFrom('tasks').selectAll().where('clinic_id', '=', actor.clinicId).where(facilityVisible('facility_id', actor));
  if (q.status) query = query.where('status', '=', q.status);
  if (q.assigneeId) query = query.where('assignee_id', '=', q.assigneeId);
  if (q.patientId) query = query.where('patient_id', '=', q.patientId);
  if (q.dueBefore) query = query.where('due_date', '<', new Date(q.dueBefore));
  // The filters in the order the cursors issued so far were signed with (updatedPage puts updatedSince first).
  const filters = [q.status ?? null, q.assigneeId?.toLowerCase() ?? null, q.patientId?.toLowerCase() ?? null, q.dueBefore ?? null];
  return updatedPage(query, { name: 'tasks', clinicId: actor.clinicId, secret: actor.cursorSecret, q, filters });
}

/** The task's columns changed (`set`), its version moved on. */
export async function updateTaskRow(trx: Transaction, id: string, set: TaskColumns): Promise<TaskRow> {
  const columns: Record<string, unknown> = { ...set };
  if (set.completed_at !== undefined) columns.completed_at = completedAt(set.completed_at);
  return trx
    .updateTable('tasks')
    .set({ ...columns, updated_at: sql`now()`, version: sql`version + 1` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

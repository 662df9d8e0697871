/** The `data` of the task events (spec 6.2, 6.3): the task without its title (free text). */
import { Type, type Static, type TSchema } from 'typebox';
import { EventDataObject, EXAMPLE_IDS as ID } from '../../core/event-data.js';
import type { AnyEventType } from '../../events/catalogue.js';
import { TaskSchema } from './schema.js';

const taskFields = Type.Pick(TaskSchema, ['id', 'status', 'type', 'dueDate', 'assigneeId', 'patientId', 'facilityId', 'createdAt', 'updatedAt']).properties;
const TASK_EXAMPLE = {
  id: ID.task,
  status: 'todo',
  type: 'recall',
  dueDate: '2026-03-09T08:00:00.000Z',
  assigneeId: ID.staff,
  patientId: ID.patient,
  facilityId: ID.facility,
  createdAt: '2026-03-02T09:30:00.000Z',
  updatedAt: '2026-03-02T09:30:00.000Z',
};
const taskData = (example: Record<string, unknown>) =>
  EventDataObject(taskFields, 'TaskEventData', 'The task without its title (free text)', { ...TASK_EXAMPLE, ...example });

/** The schema of `data` for each task event type. */
export const TASK_EVENTS = {
  'task.created': taskData({}),
  'task.completed': taskData({ status: 'done', updatedAt: '2026-03-09T10:30:00.000Z' }),
} satisfies { [T in AnyEventType]?: TSchema };

/** The `data` of a task event of type T. */
export type EventData<T extends keyof typeof TASK_EVENTS> = Static<(typeof TASK_EVENTS)[T]>;

/**
 * Tasks on the wire (spec 2.9, 3.6, 4.7.1): the schemas both planes validate and serialize
 * with (/v1/tasks and the back office's creation), and the service's types derived from them.
 */
import { Type, type Static } from 'typebox';
import { InputTimestamp, Nullable, OutputTimestamp, StringEnum, Uuid, PageQueryFields } from '../../core/schemas.js';

const TASK_STATUSES = ['todo', 'in_progress', 'done'] as const;

export const TaskSchema = Type.Object(
  {
    id: Uuid(),
    title: Type.String({ minLength: 1, maxLength: 200 }),
    status: StringEnum(TASK_STATUSES),
    dueDate: Nullable(OutputTimestamp({ description: 'ISO 8601 instant' })),
    assigneeId: Nullable(Uuid({ description: 'The staff profile it is assigned to' })),
    patientId: Nullable(Uuid({ description: 'null for a task about no patient' })),
    facilityId: Nullable(Uuid({ description: 'null for a task of the whole clinic (seen only by keys not limited to facilities)' })),
    type: Type.String({ description: '`manual`, `recall`, or a type created by the app' }),
    createdAt: OutputTimestamp(),
    updatedAt: OutputTimestamp(),
  },
  { additionalProperties: false, title: 'Task' },
);
export type TaskView = Static<typeof TaskSchema>;

/** The back office's creation. */
export const NewTaskBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200 }),
    status: Type.Optional(StringEnum(TASK_STATUSES)),
    dueDate: Type.Optional(Nullable(InputTimestamp())),
    assigneeId: Type.Optional(Nullable(Uuid())),
    patientId: Type.Optional(Nullable(Uuid())),
    facilityId: Type.Optional(Nullable(Uuid())),
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  },
  { additionalProperties: false },
);
export type NewTask = Static<typeof NewTaskBody>;

/** `PATCH /v1/tasks/{id}`: only the fields sent change. */
export const TaskChangesBody = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    status: Type.Optional(StringEnum(TASK_STATUSES)),
    dueDate: Type.Optional(Nullable(InputTimestamp())),
    assigneeId: Type.Optional(Nullable(Uuid())),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type TaskChanges = Static<typeof TaskChangesBody>;

/** /v1/tasks: the list's filters. */
export const TaskListQuerySchema = Type.Object(
  {
    ...PageQueryFields,
    updatedSince: Type.Optional(InputTimestamp()),
    status: Type.Optional(StringEnum(TASK_STATUSES)),
    assigneeId: Type.Optional(Uuid()),
    patientId: Type.Optional(Uuid()),
    dueBefore: Type.Optional(InputTimestamp()),
  },
  { additionalProperties: false },
);
/** The list's parameters, `limit` defaulted. */
export type TaskListQuery = Static<typeof TaskListQuerySchema> & { limit: number };

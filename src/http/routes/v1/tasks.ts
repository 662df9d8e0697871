/** /v1/tasks (spec 2.9, 3.6, 4.7.1). */
import type { AppContext } from '../../../context.js';
import {
  NewTaskBody,
  TaskChangesBody,
  TaskSchema,
  TaskListQuerySchema,
  createTask,
  findTask,
  listTasks,
  taskView,
  updateTask,
} from '../../../modules/tasks/index.js';
import { expectedVersion, setEtag } from '../../etag.js';
import { IdempotencyHeaders, IdParams, IfMatchHeaders, Page } from '../../../core/schemas.js';
import type { App } from '../../types.js';

const TAG = 'Tasks';

export function registerTaskRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/v1/tasks',
    {
      schema: {
        operationId: 'createTask',
        tags: [TAG],
        summary: 'Create a task for the clinic’s staff',
        description: [
          'A to-do for a person (a callback, a document to prepare): `title`, optional `dueDate`, `assigneeId` (an active staff profile), `patientId`, `facilityId` (defaults to the patient’s facility), `type` (default `manual`), `status` (default `todo`). Answers `201` with the task and its `ETag`; records `task.created`. Honours `Idempotency-Key`.',
          'Ids the key cannot see are `400` naming the field. A key limited to facilities names a `facilityId` or a `patientId` (`400` naming `facilityId` otherwise): a task of the whole clinic is seen only by keys not limited to facilities.',
        ].join('\n\n'),
        headers: IdempotencyHeaders,
        body: NewTaskBody,
        response: { 201: TaskSchema },
      },
      config: { scopes: ['tasks:write'], idempotent: true, bodyIssues: false },
    },
    async (request, reply) => {
      const row = await createTask(request.db, request.actor, request.body);
      setEtag(reply, row.version);
      return reply.status(201).send(taskView(row));
    },
  );

  app.get(
    '/v1/tasks',
    {
      schema: {
        operationId: 'listTasks',
        tags: [TAG],
        summary: 'List tasks',
        description:
          'Order: by last modification, oldest first, then by id (stable under paging; resume with `updatedSince`). Filters: `status`, `assigneeId`, `patientId`, `dueBefore` (tasks with a due date strictly before it; tasks without one are left out), `updatedSince` (modified at or after it).',
        querystring: TaskListQuerySchema,
        response: { 200: Page(TaskSchema) },
      },
      config: { scopes: ['tasks:read'] },
    },
    async (request) => listTasks(ctx.db, request.actor, { ...request.query, limit: request.query.limit ?? 50 }),
  );

  app.get(
    '/v1/tasks/:id',
    {
      schema: {
        operationId: 'getTask',
        tags: [TAG],
        summary: 'Read a task',
        description: 'One task with its `ETag`.',
        params: IdParams,
        response: { 200: TaskSchema },
      },
      config: { etag: true, scopes: ['tasks:read'] },
    },
    async (request, reply) => {
      const row = await findTask(ctx.db, request.actor, request.params.id);
      setEtag(reply, row.version);
      return taskView(row);
    },
  );

  app.patch(
    '/v1/tasks/:id',
    {
      schema: {
        operationId: 'updateTask',
        tags: [TAG],
        summary: 'Update a task',
        description: [
          'Only the fields sent change (at least one is needed); `null` removes the due date or the assignee. `status` may move between any of todo, in_progress and done (no restriction between them); becoming `done` records `task.completed`.',
          '`assigneeId` must be an active staff profile of the clinic (`400` naming `assigneeId` otherwise). `If-Match` with an old `ETag` is `409 conflict`, reason `version_mismatch`.',
        ].join('\n\n'),
        params: IdParams,
        headers: IfMatchHeaders,
        body: TaskChangesBody,
        response: { 200: TaskSchema },
      },
      config: { etag: true, scopes: ['tasks:write'], errorStatuses: [409], bodyIssues: false },
    },
    async (request, reply) => {
      const row = await updateTask(ctx.db, request.actor, request.params.id, request.body, expectedVersion(request));
      setEtag(reply, row.version);
      return taskView(row);
    },
  );
}

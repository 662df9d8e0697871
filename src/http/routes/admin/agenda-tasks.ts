/** Back office: tasks. */
import type { AppContext } from '../../../context.js';
import { NewTaskBody, TaskSchema, createTask, taskView } from '../../../modules/tasks/index.js';
import { setEtag } from '../../etag.js';
import { ClinicParams } from '../../../core/schemas.js';
import type { App } from '../../types.js';

export function registerTaskAdminRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/admin/v1/clinics/:clinicId/tasks',
    {
      schema: {
        operationId: 'adminCreateTask',
        tags: ['Agenda (back office)'],
        summary: 'Create a task',
        description:
          'Records `task.created` (and `task.completed` when created done). The facility defaults to the patient’s. The assignee must be an active staff profile of the clinic.',
        params: ClinicParams,
        body: NewTaskBody,
        response: { 201: TaskSchema },
      },
      config: { clinicActor: true, bodyIssues: false },
    },
    async (request, reply) => {
      const row = await createTask(ctx.db, request.actor, request.body);
      setEtag(reply, row.version);
      return reply.status(201).send(taskView(row));
    },
  );
}

/** /v1/recalls: the recall worklist an outbound agent calls from, and the attempts. */
import type { AppContext } from '../../../context.js';
import {
  RECALL_REASONS,
  NewRecallAttemptSchema,
  RecallAttemptListQuerySchema,
  RecallAttemptSchema,
  RecallListQuerySchema,
  RecallPatientParams,
  RecallSchema,
  SNOOZE_HOURS,
  attemptView,
  listAttempts,
  listRecalls,
  recordAttempt,
  attemptBodyIssues,
} from '../../../modules/recalls/index.js';
import { IdempotencyHeaders, Page } from '../../../core/schemas.js';
import type { App } from '../../types.js';
import { logWorklistRead } from './worklist-reads.js';

const TAG = 'Recalls';

export function registerRecallRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/recalls',
    {
      schema: {
        operationId: 'listRecalls',
        tags: [TAG],
        summary: 'The patients due for their recall, in the order to call them',
        description: [
          'A patient is due when the last completed visit of a category or type the clinic’s recall rules count (back office) plus the rules’ interval is before `dueBefore` (default now), they have no future appointment of those categories or types, they are active (not archived or erased), and they have not opted out (an attempt with outcome `opted_out`, or STOP written in chat). Patients snoozed by an outcome and patients whose phone was reported wrong (until it changes) are left out. No rules set: an empty list.',
          'Order: most overdue first (`dueAt`, then patient id; stable under paging). Filter: `facilityId`; a key limited to facilities sees its facilities’ patients. Each row holds only what a caller needs (first name, phone, last visit, what is due, attempts so far, `nextAttemptAt` under the weekly limit and the quiet hours); the read is written to the access log.',
        ].join('\n\n'),
        querystring: RecallListQuerySchema,
        response: { 200: Page(RecallSchema) },
      },
      config: { scopes: ['patients:read'] },
    },
    async (request) => {
      const page = await listRecalls(ctx.db, request.actor, { ...request.query, limit: request.query.limit ?? 50 });
      await logWorklistRead(
        ctx,
        request,
        page.data.map((r) => r.patientId),
      );
      return page;
    },
  );

  app.post(
    '/v1/recalls/:patientId/attempts',
    {
      schema: {
        operationId: 'createRecallAttempt',
        tags: [TAG],
        summary: 'Record an attempt to reach a due patient',
        description: [
          `The outcome moves the patient in the list: \`booked\` (with \`appointmentId\`, one of the patient’s) removes them; \`no_answer\` snoozes them ${SNOOZE_HOURS.no_answer} hours, \`voicemail\` ${SNOOZE_HOURS.voicemail} hours, \`declined\` ${SNOOZE_HOURS.declined / 24} days; \`callback\` (with \`callbackAt\`, in the future) creates a task of type \`recall\` due then (\`task.created\`) and snoozes them until then; \`opted_out\` removes them from automatic contact until a person clears it in the back office; \`wrong_number\` flags the phone (out of the list until the patient’s phone changes).`,
          'With `externalCallId`, the attempt is recorded once: the same id again answers the attempt recorded (`200`), for another patient `409 conflict` `external_call_id_used`. Wrong or missing fields are all named in `details.issues`; a refused attempt writes nothing. A patient the key does not see is `404`.',
        ].join('\n\n'),
        params: RecallPatientParams,
        headers: IdempotencyHeaders,
        body: NewRecallAttemptSchema,
        response: { 200: RecallAttemptSchema, 201: RecallAttemptSchema },
      },
      config: { reasons: RECALL_REASONS.attempt, scopes: ['patients:write'], idempotent: true, errorStatuses: [409], bodyIssues: attemptBodyIssues },
    },
    async (request, reply) => {
      const { row, replayed } = await recordAttempt(request.db, request.actor, request.params.patientId, request.body);
      return reply.status(replayed ? 200 : 201).send(attemptView(row));
    },
  );

  app.get(
    '/v1/recalls/:patientId/attempts',
    {
      schema: {
        operationId: 'listRecallAttempts',
        tags: [TAG],
        summary: 'A patient’s recall attempts',
        description: 'Order: oldest first, then by id (stable under paging). A patient the key does not see is `404`.',
        params: RecallPatientParams,
        querystring: RecallAttemptListQuerySchema,
        response: { 200: Page(RecallAttemptSchema) },
      },
      config: { scopes: ['patients:read'] },
    },
    async (request) => listAttempts(ctx.db, request.actor, request.params.patientId, { ...request.query, limit: request.query.limit ?? 50 }),
  );
}

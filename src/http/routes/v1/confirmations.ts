/** /v1/confirmations: the appointments waiting for their patient's confirmation, and the answers. */
import type { AppContext } from '../../../context.js';
import {
  CONFIRMATION_REASONS,
  ConfirmationAttemptSchema,
  ConfirmationListQuerySchema,
  ConfirmationSchema,
  NewConfirmationAttemptSchema,
  listConfirmations,
  recordConfirmationAttempt,
} from '../../../modules/confirmations/index.js';
import { IdParams, IdempotencyHeaders, Page } from '../../../core/schemas.js';
import type { App } from '../../types.js';
import { logWorklistRead } from './worklist-reads.js';

const TAG = 'Confirmations';

export function registerConfirmationRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/confirmations',
    {
      schema: {
        operationId: 'listConfirmations',
        tags: [TAG],
        summary: 'The appointments waiting for their patient’s confirmation, soonest first',
        description: [
          'An appointment waits for its confirmation when it is `scheduled` (not yet `confirmed`, whatever road the confirmation came by: an agent, the chat, the back office), starts in the future, is of a calendar and category the clinic’s confirmation rules cover (back office), and the first of the rules’ asking times (e.g. 48 hours before the start, or 18:00 the evening before in the clinic’s time zone) is before `dueBefore` (default now). Left out: a patient who is inactive, archived or erased, who refused automatic contact (outcome `opted_out`, or STOP written in chat), whose phone was reported wrong (until it changes); an appointment whose patient asked to reschedule (a task for the clinic), or that had the rules’ attempts. No rules set: an empty list.',
          'Order: soonest appointment first (`start`, then appointment id; stable under paging). Filter: `facilityId`; a key limited to facilities sees its facilities’ appointments. Each row holds only what an agent needs to ask: the first name and phone, the appointment’s start with its local date, time and `label` to read out (clinic time zone), the service, the clinic’s channels, the attempts so far and `nextAttemptAt` (after the retry delay, past the quiet hours: do not call before it). The read is written to the access log.',
        ].join('\n\n'),
        querystring: ConfirmationListQuerySchema,
        response: { 200: Page(ConfirmationSchema) },
      },
      config: { scopes: ['appointments:read'] },
    },
    async (request) => {
      const page = await listConfirmations(ctx.db, request.actor, { ...request.query, limit: request.query.limit ?? 50 });
      await logWorklistRead(
        ctx,
        request,
        page.data.map((r) => r.patientId),
      );
      return page;
    },
  );

  app.post(
    '/v1/appointments/:id/confirmation-attempts',
    {
      schema: {
        operationId: 'createConfirmationAttempt',
        tags: [TAG],
        summary: 'Record a patient’s answer to the confirmation request',
        description: [
          'The outcome applies in the same transaction as the attempt: `confirmed` sets the status `confirmed` (`appointment.confirmed`; an appointment already confirmed stays as it is); `cancel_requested` cancels the appointment as `POST /v1/appointments/{id}/cancel` does (`appointment.cancelled`, the time free at once and offered to the waitlist) but without the calendar’s cancellation notice and for appointments entered without a calendar too, since the clinic asked; `reschedule_requested` keeps the time the patient’s and creates a task of type `confirmation` for the clinic (`task.created`), with no more automatic asking for this appointment at this time (move it with `POST /v1/appointments/{id}/reschedule`: the old time is freed then, and the new time is asked afresh, attempts from zero); `no_answer` and `voicemail` are counted, and the appointment is asked again after the rules’ `retryAfterMinutes`, up to their `maxAttempts`; `wrong_number` flags the patient’s phone (none of their appointments is listed until the phone changes); `opted_out` stops automatic asking for the patient until a person clears it in the back office.',
          'Any channel may answer (`phone`, `sms`, `whatsapp`, `email`, `chat`), whatever the rules ask by. Only a `scheduled` or `confirmed` appointment that has not started can be answered for: otherwise `409 conflict` `not_answerable` (with `details.status`), so an answer arriving after a cancellation changes nothing. With `externalCallId` (the call’s or the message’s id), the attempt is recorded once: the same id again answers the attempt recorded (`200`, whatever happened since), for another appointment `409 conflict` `external_call_id_used`. Wrong or missing fields are all named in `details.issues`; a refused attempt writes nothing. An appointment the key does not see is `404`.',
        ].join('\n\n'),
        params: IdParams,
        headers: IdempotencyHeaders,
        body: NewConfirmationAttemptSchema,
        response: { 200: ConfirmationAttemptSchema, 201: ConfirmationAttemptSchema },
      },
      config: { reasons: CONFIRMATION_REASONS.attempt, scopes: ['appointments:write'], idempotent: true, errorStatuses: [409], bodyIssues: false },
    },
    async (request, reply) => {
      const { attempt, replayed } = await recordConfirmationAttempt(request.db, request.actor, request.params.id, request.body);
      return reply.status(replayed ? 200 : 201).send(attempt);
    },
  );
}

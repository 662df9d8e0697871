/** The no-show loop: the appointments waiting for their confirmation, and the patient's answer (outbound, or a reply in chat). */
import { IdParams, Page } from '../../core/schemas.js';
import { ConfirmationAttemptSchema, ConfirmationListQuerySchema, ConfirmationSchema, NewConfirmationAttemptSchema } from '../../modules/confirmations/index.js';
import { SAY_TIMES } from '../local-time.js';
import type { AgentTool } from '../tool.js';

const appointmentPath = { schema: IdParams, names: { id: 'appointmentId' } };

const OUTCOMES =
  '`outcome`: `confirmed`; `cancel_requested` (cancelled at once, the time offered to people waiting); `reschedule_requested` (the clinic calls back to move it); `no_answer`; `voicemail`; `wrong_number` (they do not know the patient); `opted_out` (no more automatic reminders).';

export const CONFIRMATION_TOOLS: AgentTool[] = [
  {
    name: 'list_confirmations',
    title: 'Appointments to confirm',
    description: [
      {
        text: 'Appointments whose patient has not confirmed, soonest first. Call `phone` not before `nextAttemptAt`, ask for `firstName`, and only to them say the day, time and service and ask if they are coming; then log_confirmation_attempt.',
        otherwise:
          'Appointments whose patient has not confirmed, soonest first. Call `phone` not before `nextAttemptAt`, ask for `firstName`, and only to them say the day, time and service.',
      },
      SAY_TIMES,
    ],
    operation: { method: 'GET', url: '/v1/confirmations', operationId: 'listConfirmations' },
    query: ConfirmationListQuerySchema,
    output: Page(ConfirmationSchema),
    audience: 'all',
    unshown: ['cursor', 'facilityId', 'dueBefore'],
  },
  {
    name: 'log_confirmation_attempt',
    title: 'Log a confirmation call',
    description: [
      'What the patient of an appointment to confirm answered.',
      OUTCOMES,
      {
        text: '`appointmentId` only from list_confirmations or a known patient’s appointments, never found by a name alone. Pass `callId`.',
        otherwise: '`appointmentId` only from a known patient’s appointments, never found by a name alone. Pass `callId`.',
      },
    ],
    operation: { method: 'POST', url: '/v1/appointments/:id/confirmation-attempts', operationId: 'createConfirmationAttempt' },
    params: appointmentPath,
    body: NewConfirmationAttemptSchema,
    output: ConfirmationAttemptSchema,
    callIdAs: 'externalCallId',
    audience: 'voice',
    destructive: true,
    unshown: ['note'],
  },
  {
    name: 'reply_to_confirmation',
    title: 'Record a chat reply to a confirmation request',
    description: [
      'The patient of this conversation answers the clinic’s reminder of an appointment (“sì, ci sarò”, “non posso venire”, “posso spostarlo?”): record it with `channel` `chat` (or `whatsapp` on WhatsApp). Read the day and time back (`label`) before recording a cancellation.',
      OUTCOMES,
      {
        text: '`appointmentId` only from list_patient_appointments for the patient this conversation belongs to (their own number) or a confirmed search_patients, never from a name alone.',
        otherwise: '`appointmentId` only from the appointments of the patient this conversation belongs to, never from a name alone.',
      },
      'Pass the message’s id as `externalCallId`, so a repeated reply is recorded once.',
    ],
    operation: { method: 'POST', url: '/v1/appointments/:id/confirmation-attempts', operationId: 'createConfirmationAttempt' },
    params: appointmentPath,
    body: NewConfirmationAttemptSchema,
    output: ConfirmationAttemptSchema,
    audience: 'chat',
    destructive: true,
  },
];

/** The outbound steps: a waitlist that offers freed slots, and the recall worklist an outbound agent calls down. */
import { IdParams, Page } from '../../core/schemas.js';
import { NewRecallAttemptSchema, RecallAttemptSchema, RecallListQuerySchema, RecallPatientParams, RecallSchema } from '../../modules/recalls/index.js';
import { AgendaStatsQuerySchema, AgendaStatsSchema } from '../../modules/stats/index.js';
import { NewWaitlistEntrySchema, OfferListQuerySchema, WaitlistEntrySchema, WaitlistOfferSchema } from '../../modules/waitlist/index.js';
import { SAY_TIMES } from '../local-time.js';
import type { AgentTool } from '../tool.js';
import { PATIENT_FROM_CONFIRMED } from './identity.js';

const offerPath = { schema: IdParams, names: { id: 'offerId' } };

export const OUTBOUND_TOOLS: AgentTool[] = [
  {
    name: 'add_to_waitlist',
    title: 'Put the caller on the waitlist',
    description: [
      {
        text: 'When no slot suits the caller (find_slots answered nothing they can take), put them on the waitlist of that service (`calendarId`): `patientId` or `leadId`, the window `earliest`–`latest`, the days and parts of day they prefer, and how to reach them.',
        otherwise:
          'When no slot suits the caller, put them on the waitlist of that service (`calendarId`): `patientId` or `leadId`, the window `earliest`–`latest`, the days and parts of day they prefer, and how to reach them.',
      },
      SAY_TIMES,
      'When a slot of that service frees up, it is offered to them first and held for them; say that the clinic will call or write. One open entry per person and service: a second answers `conflict`.',
      PATIENT_FROM_CONFIRMED,
    ],
    operation: { method: 'POST', url: '/v1/waitlist', operationId: 'createWaitlistEntry' },
    body: NewWaitlistEntrySchema,
    output: WaitlistEntrySchema,
    audience: 'all',
  },
  {
    name: 'list_waitlist_offers',
    title: 'Freed slots offered to people waiting',
    description: [
      'The slots held for people on the waitlist, each with its person, time and `expiresAt`: call or write to each, in order, to offer the slot, then accept_waitlist_offer or decline_waitlist_offer with what they said.',
      'When the list is empty, there is nobody to call.',
      SAY_TIMES,
    ],
    operation: { method: 'GET', url: '/v1/waitlist-offers', operationId: 'listWaitlistOffers' },
    query: OfferListQuerySchema,
    output: Page(WaitlistOfferSchema),
    audience: 'all',
  },
  {
    name: 'accept_waitlist_offer',
    title: 'Book an offered slot',
    description: [
      'The person said yes to the offered slot: this books it for them (also after `expiresAt` when nobody took it meanwhile) and closes their waitlist entry. Read back the day and time. Sending it again answers the same offer.',
    ],
    operation: { method: 'POST', url: '/v1/waitlist-offers/:id/accept', operationId: 'acceptWaitlistOffer' },
    params: offerPath,
    output: WaitlistOfferSchema,
    audience: 'all',
    idempotent: true,
  },
  {
    name: 'decline_waitlist_offer',
    title: 'Pass an offered slot on',
    description: ['The person does not want the offered slot: it passes to the next person waiting, or is freed. Their entry stays open for later slots.'],
    operation: { method: 'POST', url: '/v1/waitlist-offers/:id/decline', operationId: 'declineWaitlistOffer' },
    params: offerPath,
    output: WaitlistOfferSchema,
    audience: 'all',
    idempotent: true,
  },
  {
    name: 'list_due_recalls',
    title: 'Patients due for their recall',
    description: [
      'The patients due for a check-up or hygiene recall, most overdue first, with the first name to greet, the phone, the last visit, what is due and `nextAttemptAt` (do not call before it: the clinic’s weekly limit and quiet hours).',
      {
        text: 'Offer the due visit (find_slots, book_appointment), then log the outcome with log_recall_attempt. An empty list means nobody is due now.',
        otherwise: 'An empty list means nobody is due now.',
      },
      SAY_TIMES,
    ],
    operation: { method: 'GET', url: '/v1/recalls', operationId: 'listRecalls' },
    query: RecallListQuerySchema,
    output: Page(RecallSchema),
    audience: 'all',
  },
  {
    name: 'log_recall_attempt',
    title: 'Log a recall call or message',
    description: [
      {
        text: 'After calling or writing to a patient of list_due_recalls: the `channel` and the `outcome` (`booked` with the `appointmentId`, `no_answer`, `voicemail`, `callback` with the time they asked, `declined`, `wrong_number`, `opted_out` when they ask not to be contacted again).',
        otherwise:
          'After calling or writing to a patient due for a recall: the `channel` and the `outcome` (`booked` with the `appointmentId`, `no_answer`, `voicemail`, `callback` with the time they asked, `declined`, `wrong_number`, `opted_out` when they ask not to be contacted again).',
      },
      'Pass the phone call’s `callId`, so a retry logs it once.',
    ],
    operation: { method: 'POST', url: '/v1/recalls/:patientId/attempts', operationId: 'createRecallAttempt' },
    params: { schema: RecallPatientParams, names: { patientId: 'patientId' } },
    body: NewRecallAttemptSchema,
    output: RecallAttemptSchema,
    callIdAs: 'externalCallId',
    audience: 'all',
  },
  {
    name: 'get_agenda_stats',
    title: 'What the agenda achieved, week by week',
    description: [
      'The clinic’s figures for each week from `from` to `to` (days `YYYY-MM-DD` in {timeZone}, `to` exclusive, at most 371 days; weeks start on Monday): appointments, the share confirmed, no-shows and their rate, cancellations and the hours they freed, freed slots booked again from the waitlist, recall calls made and booked; `totals` for the whole range.',
      'For “how did last week go?” ask one week (Monday to the next Monday). A share is null when there was nothing to count; say so rather than zero.',
    ],
    operation: { method: 'GET', url: '/v1/stats/agenda', operationId: 'getAgendaStats' },
    query: AgendaStatsQuerySchema,
    output: AgendaStatsSchema,
    audience: 'staff',
  },
];

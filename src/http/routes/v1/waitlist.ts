/** /v1/waitlist and /v1/waitlist-offers: people waiting for a slot, and the freed slots offered to them. */
import { Type } from 'typebox';
import type { AppContext } from '../../../context.js';
import {
  WAITLIST_REASONS,
  DEFAULT_OFFER_MINUTES,
  NewWaitlistEntrySchema,
  OfferListQuerySchema,
  WaitlistEntrySchema,
  WaitlistListQuerySchema,
  WaitlistOfferSchema,
  createEntry,
  entryView,
  getEntry,
  listEntries,
  listOffers,
  entryBodyIssues,
} from '../../../modules/waitlist/index.js';
import { acceptOffer, declineOffer, removeEntry } from '../../../modules/scheduling/index.js';
import { IdempotencyHeaders, IdParams, Page } from '../../../core/schemas.js';
import type { App } from '../../types.js';

const TAG = 'Waitlist';

const OFFERS_TEXT = [
  `When an appointment of a calendar frees its time before it starts (cancelled, moved away through the API or the agenda, or set to a status that holds no time), the first open entry of that calendar that matches the slot (in order of creation; the slot inside \`earliest\`-\`latest\`, of the entry’s doctor if it names one, on a preferred day and part of the day if it names any) gets an **offer**, in the same transaction: event \`waitlist.offer_created\`. The person who freed the slot is not offered it back. The offer keeps the slot like a hold (missing from availability, bookings and holds, \`409 no_availability\` \`slot_taken\`) until it is accepted, declined or expires (the clinic’s setting, default ${DEFAULT_OFFER_MINUTES} minutes; the per-key limit of holds does not apply). Then the slot passes to the next matching entry, or is free again. An entry has at most one live offer, and a slot one offer at a time.`,
].join('\n\n');

export function registerWaitlistRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/v1/waitlist',
    {
      schema: {
        operationId: 'createWaitlistEntry',
        tags: [TAG],
        summary: 'Put a patient or a lead on a calendar’s waitlist',
        description: [
          'Exactly one of `patientId` and `leadId` (both or neither: `400` naming both). The window `earliest` (default now) to `latest` (in the future, after `earliest`), preferred `days` and `partsOfDay` (clinic time zone; empty: any), a `note` for the caller, and the `channel` to reach them. A `doctorId` must be one of the calendar’s. Every wrong field is named at once in `details.issues`.',
          'One open entry per person and calendar: another is `409 conflict` reason `already_waiting` with `details.entryId`. A calendar, patient or lead the key does not see is `400` naming its field.',
          OFFERS_TEXT,
        ].join('\n\n'),
        headers: IdempotencyHeaders,
        body: NewWaitlistEntrySchema,
        response: { 201: WaitlistEntrySchema },
      },
      config: { reasons: WAITLIST_REASONS.create, scopes: ['appointments:write'], idempotent: true, errorStatuses: [409], bodyIssues: entryBodyIssues },
    },
    async (request, reply) => reply.status(201).send(entryView(await createEntry(request.db, request.actor, request.body), request.actor.timeZone)),
  );

  app.get(
    '/v1/waitlist',
    {
      schema: {
        operationId: 'listWaitlistEntries',
        tags: [TAG],
        summary: 'List waitlist entries',
        description:
          'Order: by creation, oldest first, then by id (the order entries are offered slots in; stable under paging). Filters: `status`, `calendarId`, `patientId`, `leadId`. A key limited to facilities sees the entries of its facilities’ calendars.',
        querystring: WaitlistListQuerySchema,
        response: { 200: Page(WaitlistEntrySchema) },
      },
      config: { scopes: ['appointments:read'] },
    },
    async (request) => listEntries(ctx.db, request.actor, { ...request.query, limit: request.query.limit ?? 50 }),
  );

  app.get(
    '/v1/waitlist/:id',
    {
      schema: {
        operationId: 'getWaitlistEntry',
        tags: [TAG],
        summary: 'Read a waitlist entry',
        description: 'One entry, in any status.',
        params: IdParams,
        response: { 200: WaitlistEntrySchema },
      },
      config: { scopes: ['appointments:read'] },
    },
    async (request) => entryView(await getEntry(ctx.db, request.actor, request.params.id), request.actor.timeZone),
  );

  app.delete(
    '/v1/waitlist/:id',
    {
      schema: {
        operationId: 'deleteWaitlistEntry',
        tags: [TAG],
        summary: 'Take an entry off the waitlist',
        description:
          'The entry becomes `removed` (it stays readable). Its live offer, if any, is `withdrawn` and its slot passes at once to the next matching entry. Deleting an entry that is no longer open answers `204` and changes nothing.',
        params: IdParams,
        response: { 204: Type.Null({ description: 'Removed' }) },
      },
      config: { reasons: WAITLIST_REASONS.remove, scopes: ['appointments:write'] },
    },
    async (request, reply) => {
      await removeEntry(ctx.db, request.actor, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/v1/waitlist-offers',
    {
      schema: {
        operationId: 'listWaitlistOffers',
        tags: [TAG],
        summary: 'List the offers of freed slots',
        description: [
          OFFERS_TEXT,
          'Order: by creation, oldest first, then by id (stable under paging). Filters: `status` (`offered` for the ones to call about now), `entryId`, `calendarId`.',
        ].join('\n\n'),
        querystring: OfferListQuerySchema,
        response: { 200: Page(WaitlistOfferSchema) },
      },
      config: { scopes: ['appointments:read'] },
    },
    async (request) => listOffers(ctx.db, request.actor, { ...request.query, limit: request.query.limit ?? 50 }),
  );

  app.post(
    '/v1/waitlist-offers/:id/accept',
    {
      schema: {
        operationId: 'acceptWaitlistOffer',
        tags: [TAG],
        summary: 'Accept an offer: book its slot',
        description: [
          'Books the offered slot (its doctor, chair and time; the calendar’s type and category) for the entry’s patient, or for the patient a lead entry’s lead was converted into (`409 conflict` `lead_not_converted` before that). The offer becomes `accepted` with `appointmentId` (event `appointment.created`), and the entry `booked`. Accepting again answers the same offer (`200`).',
          'An offer past `expiresAt` still books while its slot is free; once the slot was passed on or taken, `409 conflict` `offer_expired`. Other refusals: `offer_declined`, `offer_withdrawn`, `entry_closed` (the entry booked another offer), `doctor_busy`/`chair_busy` (the clinic’s own agenda took the time). Of parallel accepts exactly one books; refusals write nothing.',
        ].join('\n\n'),
        params: IdParams,
        response: { 200: WaitlistOfferSchema },
      },
      config: { reasons: WAITLIST_REASONS.accept, scopes: ['appointments:write'], errorStatuses: [409] },
    },
    async (request) => acceptOffer(ctx.db, request.actor, request.params.id),
  );

  app.post(
    '/v1/waitlist-offers/:id/decline',
    {
      schema: {
        operationId: 'declineWaitlistOffer',
        tags: [TAG],
        summary: 'Decline an offer: pass its slot on',
        description:
          'The offer becomes `declined` and its slot passes at once to the next matching entry (which was not offered this slot before), or is free again. The entry stays open for other slots. Declining again answers the same offer; a lapsed offer already passed on is `409 conflict` `offer_expired`; others `offer_accepted`, `offer_withdrawn`.',
        params: IdParams,
        response: { 200: WaitlistOfferSchema },
      },
      config: { reasons: WAITLIST_REASONS.decline, scopes: ['appointments:write'], errorStatuses: [409] },
    },
    async (request) => declineOffer(ctx.db, request.actor, request.params.id),
  );
}

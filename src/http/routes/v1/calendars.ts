/** /v1/calendars: the bookable services, their free slots (spec 4.11) and slot holds. */
import {
  availabilityQueryIssues,
  availability,
  MAX_WINDOW_DAYS,
  CalendarSchema,
  AvailabilityQuerySchema,
  AvailabilitySchema,
  CalendarListQuerySchema,
  getCalendar,
  listCalendars,
} from '../../../modules/calendars/index.js';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.js';
import { HOLD_LIFE_SECONDS, HOLD_REASONS, HOLDS_PER_KEY, HoldSchema, NewHoldSchema } from '../../../modules/holds/index.js';
import { createHold, releaseHold } from '../../../modules/scheduling/index.js';
import { IdempotencyHeaders, IdParams, Page } from '../../../core/schemas.js';
import type { App } from '../../types.js';

const CLINIC = 'Clinic';
const AGENDA = 'Agenda (appointments)';

export function registerCalendarRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/calendars',
    {
      schema: {
        operationId: 'listCalendars',
        tags: [CLINIC],
        summary: 'List the calendars (bookable services)',
        description: [
          'The clinic’s calendars, each a bookable service: name, description, facility, doctors and chairs, slot length, appointment `type` and `category`, minimum notice, booking horizon, cancellation notice, weekly working hours in the clinic’s time zone, who may book it (`bookableBy`), whether it takes new patients, and `keywords` an agent can match a caller’s words against. Inactive calendars are listed too (`active: false`).',
          'A key limited to facilities sees only the calendars of its facilities. Filters: `facilityId`, `doctorId`. Order: by last modification, oldest first, then by id (stable under paging; resume with `updatedSince`).',
        ].join('\n\n'),
        querystring: CalendarListQuerySchema,
        response: { 200: Page(CalendarSchema) },
      },
      config: { scopes: ['clinic:read'] },
    },
    async (request) => listCalendars(ctx.db, request.actor, request.query),
  );

  app.get(
    '/v1/calendars/:id',
    {
      schema: {
        operationId: 'getCalendar',
        tags: [CLINIC],
        summary: 'Read a calendar',
        description: 'One calendar (see listCalendars). A calendar of a facility the key does not see is `404`.',
        params: IdParams,
        response: { 200: CalendarSchema },
      },
      config: { scopes: ['clinic:read'] },
    },
    async (request) => getCalendar(ctx.db, request.actor, request.params.id),
  );

  app.get(
    '/v1/calendars/:id/availability',
    {
      schema: {
        operationId: 'getCalendarAvailability',
        tags: [AGENDA],
        summary: 'Free slots of a calendar',
        description: [
          'The free slots whose start falls in the requested window [`from`, `to`), oldest first. Defaults: `from` now, `to` seven days after `from`; the window may span at most ' +
            MAX_WINDOW_DAYS +
            ' days and `to` must follow `from` (`400` naming `to` otherwise).',
          'Or a local day: `date` (`YYYY-MM-DD` in the clinic’s time zone) is that whole day, and with `partOfDay` only its `morning` (00:00-13:00), `afternoon` (13:00-18:00) or `evening` (18:00-24:00), the day’s own clock changes included. `date` and `partOfDay` do not go with `from`/`to` (`400` naming each of `from`, `to` sent), and `partOfDay` needs `date` (`400` naming `partOfDay`).',
          'A slot lies on the calendar’s slot grid inside its working hours (clinic timezone), has a doctor of the calendar (or `doctorId`) and, when the calendar has chairs, a chair, neither busy in an overlapping appointment (cancelled, no-show, postponed and draft appointments do not hold time) nor in a live slot hold (createSlotHold). Each slot names the doctor and chair a booking would get.',
          'For an agent to say it, each slot carries `localDate`, `localTime` and `partOfDay` in the clinic’s zone and an Italian `label` (“martedì 4 marzo alle 9:30”). `spread=day` keeps the first free slot of each day, `spread=part_of_day` the first of each morning, afternoon and evening, so a few slots cover several days; `limit` (1-200) then keeps the first ones.',
          '`window` is the part of the request the calendar’s rules let anyone book (after the minimum notice, before the booking horizon): `null`, with `data: []`, when they leave nothing to search. `data: []` with a `window` means no slot is free.',
          'An empty answer says why in `emptyReason`: `calendar_inactive`, `not_bookable_by_agent` (the calendar’s `bookableBy` excludes this key’s channel: `api`, `bot` or `voice`), `beyond_horizon` (the window starts past the booking horizon), `closed` (no working hours in the window, or the window is wholly before the minimum notice), `fully_booked` (working hours, every slot taken). With `closed` and `fully_booked`, `nextAvailable` is the first free slot after the window (within the horizon, searched up to 93 days), or null. Both are null when `data` is not empty.',
        ].join('\n\n'),
        params: IdParams,
        querystring: AvailabilityQuerySchema,
        response: {
          200: AvailabilitySchema,
        },
      },
      config: { scopes: ['appointments:read'], queryIssues: availabilityQueryIssues },
    },
    async (request) => ctx.reads.run(request.actor, (db) => availability(db, request.actor, request.params.id, request.query)),
  );

  app.post(
    '/v1/calendars/:id/holds',
    {
      schema: {
        operationId: 'createSlotHold',
        tags: [AGENDA],
        summary: 'Hold a free slot while the caller confirms',
        description: [
          'Keeps the free slot starting at `start` for `ttlSeconds` (30-600, default 300) for the call or chat `holderRef` (its holder), at `doctorId` when given or the first free doctor and chair. Answers `201` with the hold. From then on the time is missing from everyone’s availability and bookings (`409 no_availability` reason `slot_taken` with `details.heldUntil`), until it is booked (createAppointment with `holdId`), released (releaseSlotHold) or lapses at `expiresAt`.',
          'A holder holds one slot at a time: a new hold with the same `holderRef` by the same key replaces the old one (whose time is freed first). Of parallel holds and bookings of one time exactly one wins, on both engines (they take the same schedule locks). Distinct holders of one key (the concurrent calls of a clinic’s voice key) are not refused while free slots remain.',
          'Without `holderRef` the key itself is the holder, of one slot per calendar at a time (its `holderRef` reads `key:<calendarId>`): while that hold lives, a hold of another time of the calendar without `holderRef` is `409 conflict` reason `hold_limit_calendar` with `details.limit` (1), `details.heldStart` and `details.expiresAt` (send a `holderRef` per call, release it, or book directly); the same time again renews it. Without a holderRef a caller changing their mind cannot be told from a second caller, and replacing would take the first caller’s slot away unseen.',
          `A key holds at most ${HOLDS_PER_KEY} live slots at once, whatever its holders (a call needs one): beyond that, \`409 conflict\` reason \`hold_limit\` with \`details.limit\` and \`details.nextExpiresAt\`, until one is released, booked or lapses.`,
          `A holder’s holds live at most ${HOLD_LIFE_SECONDS / 60} minutes in all, from the first hold of its \`holderRef\`: a replacement keeps that deadline (its \`expiresAt\` is never later), and once it has passed, holding again with the same \`holderRef\` is \`409 conflict\` reason \`hold_life_exceeded\` (with \`details.firstHeldAt\` and \`details.deadline\`): book the slot without a hold. A holder starts afresh once its hold was booked or released (releaseSlotHold), or ${HOLD_LIFE_SECONDS / 60} minutes after its last hold lapsed.`,
          'Refusals write nothing: `409 no_availability` (`slot_taken`, `outside_availability`, with `details.alternatives`) as for a booking; `403 forbidden` reason `not_bookable_by_agent` when the calendar’s `bookableBy` excludes this key’s channel; `400` naming `doctorId` for a doctor not of the calendar. A calendar the key does not see is `404`.',
        ].join('\n\n'),
        params: IdParams,
        headers: IdempotencyHeaders,
        body: NewHoldSchema,
        response: { 201: HoldSchema },
      },
      config: { reasons: HOLD_REASONS.create, scopes: ['appointments:write'], idempotent: true, errorStatuses: [409], bodyIssues: false },
    },
    async (request, reply) => reply.status(201).send(await createHold(request.db, request.actor, request.params.id, request.body)),
  );

  app.delete(
    '/v1/holds/:id',
    {
      schema: {
        operationId: 'releaseSlotHold',
        tags: [AGENDA],
        summary: 'Release a slot hold',
        description:
          'Frees the held time at once. Only the key that made the hold can release it (`404` for any other key). Releasing a hold that lapsed, or was already used by a booking, answers `204` and changes nothing.',
        params: IdParams,
        response: { 204: Type.Null({ description: 'Released' }) },
      },
      config: { scopes: ['appointments:write'] },
    },
    async (request, reply) => {
      await releaseHold(ctx.db, request.actor, request.params.id);
      return reply.status(204).send(null);
    },
  );
}

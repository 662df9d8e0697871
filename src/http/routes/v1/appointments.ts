/** /v1/appointments (spec 2.2, 4.1) and booking through a calendar. */
import type { FastifyRequest } from 'fastify';
import { APPOINTMENT_REASONS } from '../../../modules/appointments/reasons.js';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.js';
import { hasScope } from '../../../modules/auth/authenticate.js';
import {
  APPOINTMENT_CATEGORIES,
  APPOINTMENT_ORIGINS,
  APPOINTMENT_STATUSES,
  APPOINTMENT_TYPES,
  toView,
  type AppointmentView,
} from '../../../modules/appointments/model.js';
import { findAppointment, listAppointments, listFilters, type ListQuery as PageQuery } from '../../../modules/appointments/service.js';
import { ReadCache } from '../../../db/read-cache.js';
import type { TenantScope } from '../../../db/tenant.js';
import { bookAppointment, cancelAppointmentViaApi, rescheduleAppointmentViaApi } from '../../../modules/calendars/booking.js';
import { expectedVersion, setEtag } from '../../etag.js';
import {
  Cursor,
  IdParams,
  IdempotencyKeyHeader,
  IfMatchHeader,
  InputTimestamp,
  Limit,
  Nullable,
  OutputTimestamp,
  Page,
  StringEnum,
  Uuid,
} from '../../../core/schemas.js';
import type { App } from '../../types.js';

const TAG = 'Agenda (appointments)';

const appointmentFields = {
  id: Uuid(),
  patientId: Uuid(),
  facilityId: Nullable(Uuid()),
  doctorId: Nullable(Uuid()),
  chairId: Nullable(Uuid()),
  calendarId: Nullable(Uuid({ description: 'Calendar it came from; its rules apply to rescheduling and cancelling. null = outside any calendar' })),
  start: OutputTimestamp(),
  end: OutputTimestamp(),
  status: StringEnum(APPOINTMENT_STATUSES),
  type: Nullable(StringEnum(APPOINTMENT_TYPES)),
  category: Nullable(StringEnum(APPOINTMENT_CATEGORIES)),
  title: Nullable(Type.String({ description: 'Free text; the read is access-logged' })),
  reason: Nullable(Type.String({ description: 'Reason for the visit; free text; the read is access-logged' })),
  origin: StringEnum(APPOINTMENT_ORIGINS),
  treatmentPlanId: Nullable(Uuid()),
  createdAt: Nullable(OutputTimestamp()),
  updatedAt: Nullable(OutputTimestamp()),
};

export const AppointmentSchema = Type.Object(appointmentFields, { additionalProperties: false, title: 'Appointment' });
export const AppointmentDetailSchema = Type.Object(
  {
    ...appointmentFields,
    notes: Type.Optional(Nullable(Type.String({ description: 'Only with `clinical:read`; access-logged' }))),
    clinicalNotes: Type.Optional(Nullable(Type.String({ description: 'Only with `clinical:read`; access-logged' }))),
    completionNotes: Type.Optional(Nullable(Type.String({ description: 'Only with `clinical:read`; access-logged' }))),
  },
  { additionalProperties: false, title: 'AppointmentDetail' },
);

const STATUS_LIST = `^(${APPOINTMENT_STATUSES.join('|')})(,(${APPOINTMENT_STATUSES.join('|')}))*$`;

const ListQuery = Type.Object(
  {
    limit: Type.Optional(Limit(200, 50)),
    cursor: Type.Optional(Cursor()),
    updatedSince: Type.Optional(InputTimestamp({ description: 'Only rows modified at or after this instant (only with `sort=updated`)' })),
    from: Type.Optional(InputTimestamp({ description: 'Only appointments starting at or after it (inclusive)' })),
    to: Type.Optional(InputTimestamp({ description: 'Only appointments starting before it (exclusive)' })),
    facilityId: Type.Optional(Uuid()),
    doctorId: Type.Optional(Uuid()),
    patientId: Type.Optional(Uuid()),
    status: Type.Optional(
      Type.String({ maxLength: 200, pattern: STATUS_LIST, description: `One or more statuses separated by commas, from: ${APPOINTMENT_STATUSES.join(', ')}` }),
    ),
    sort: Type.Optional(
      StringEnum(['updated', 'start'] as const, {
        default: 'updated',
        description: '`updated` (default): by last modification, then id; `start`: by start time, then id; `updatedSince` is refused with it',
      }),
    ),
  },
  {
    additionalProperties: false,
    // sort=start does not go with updatedSince: the validator names updatedSince.
    if: { properties: { sort: { const: 'start' } }, required: ['sort'] },
    then: { properties: { updatedSince: false } },
  },
);

/** Logged free-text fields of the list and detail (spec 2.1). */
function loggedFields(view: AppointmentView): string[] {
  const fields: string[] = [];
  for (const f of ['title', 'reason', 'notes', 'clinicalNotes', 'completionNotes'] as const) if (view[f] !== undefined && view[f] !== null) fields.push(f);
  return fields;
}

const BookBody = Type.Object(
  {
    calendarId: Uuid(),
    patientId: Uuid(),
    start: InputTimestamp({ description: 'Start of a free slot of the calendar (see getCalendarAvailability); the end is start + the calendar’s slot length' }),
    doctorId: Type.Optional(Uuid({ description: 'A doctor of the calendar; otherwise the first free one' })),
    origin: Type.Optional(
      StringEnum(['api', 'bot', 'voice'] as const, { default: 'api', description: 'Who books: `api` (default), `bot` (chat) or `voice` (voice agent)' }),
    ),
    type: Type.Optional(Nullable(StringEnum(APPOINTMENT_TYPES))),
    category: Type.Optional(Nullable(StringEnum(APPOINTMENT_CATEGORIES))),
    title: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    reason: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 2000 }))),
  },
  { additionalProperties: false },
);

/** What identifies a page: the scope's facilities, the order, the size, the cursor and the filters. */
function pageKey(scope: TenantScope, q: PageQuery): string {
  const facilities = scope.facilityIds === null ? null : [...scope.facilityIds].sort();
  return JSON.stringify([facilities, q.sort, q.limit, q.cursor ?? null, listFilters(q)]);
}

export function registerAppointmentRoutes(app: App, ctx: AppContext): void {
  // Pages of the list, serialized, as the clinic's appointments were at the last change: the
  // change feed drops a clinic's pages at the commit of any change to its appointments. The
  // page's JSON is kept, so a hit costs neither the database nor serialization.
  const pages = new ReadCache<{ body: string; loggedIds: string[] }>(ctx.changes, 'appointments', 500);

  /** A response holding an appointment's title or reason is a read of them: logged. */
  const logged = async (request: FastifyRequest, view: AppointmentView): Promise<AppointmentView> => {
    await ctx.accessLog.record(request.auth, { resourceType: 'appointment', resourceIds: [view.id], fields: loggedFields(view), requestId: request.id });
    return view;
  };

  app.get(
    '/v1/appointments',
    {
      schema: {
        operationId: 'listAppointments',
        tags: [TAG],
        summary: 'List appointments',
        description: [
          'A page of appointments of the clinic and of the facilities the key sees.',
          'Order: `sort=updated` (default) by last modification, oldest first, then by id, for syncing with `updatedSince`; `sort=start` by start time, then by id (sending `updatedSince` with it is `400`).',
          '`from` is inclusive and `to` exclusive, both on the start time. `status` takes one or more statuses separated by commas; an unknown status is `400` naming `status`.',
          '`notes`, `clinicalNotes` and `completionNotes` are never in the list: read them from getAppointment with `clinical:read`.',
          'Access log: one entry per request, naming the appointments returned whose `title` or `reason` holds text (appointments with both null reveal no free text and are not named).',
          'Pages are served from memory and dropped at the commit of any change to the clinic’s appointments: a change made through another server process is seen about a millisecond after its commit. Every read is access-logged, from memory or not.',
        ].join('\n\n'),
        querystring: ListQuery,
        response: { 200: Page(AppointmentSchema) },
      },
      config: { scopes: ['appointments:read'] },
    },
    async (request, reply) => {
      const query: PageQuery = { ...request.query, limit: request.query.limit ?? 50, sort: request.query.sort ?? 'updated' };
      const { body, loggedIds } = await pages.get(request.auth.clinicId, pageKey(request.auth, query), async () => {
        const page = await listAppointments(ctx, request.auth, query);
        const logged = page.data.filter((a) => a.title !== null || a.reason !== null);
        return { body: reply.serialize(page) as string, loggedIds: logged.map((a) => a.id) };
      });
      // Every read is logged, whether the page came from the cache or not.
      await ctx.accessLog.record(request.auth, { resourceType: 'appointment', resourceIds: loggedIds, fields: ['title', 'reason'], requestId: request.id });
      // Already serialized by the route's response schema: a JSON string is sent as it is.
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );

  app.get(
    '/v1/appointments/:id',
    {
      schema: {
        operationId: 'getAppointment',
        tags: [TAG],
        summary: 'Read an appointment',
        description:
          'One appointment with an `ETag`. With `clinical:read` it also holds `notes`, `clinicalNotes` and `completionNotes`; without it those three fields are absent. The read of `title`, `reason` and the notes is access-logged (the fields that hold text).',
        params: IdParams,
        response: { 200: AppointmentDetailSchema },
      },
      config: { scopes: ['appointments:read'] },
    },
    async (request, reply) => {
      const row = await findAppointment(ctx.db, request.auth, request.params.id);
      const view = toView(row, hasScope(request.auth, 'clinical:read'));
      await ctx.accessLog.record(request.auth, { resourceType: 'appointment', resourceIds: [row.id], fields: loggedFields(view), requestId: request.id });
      setEtag(reply, row.version);
      return view;
    },
  );

  app.post(
    '/v1/appointments',
    {
      schema: {
        operationId: 'createAppointment',
        tags: [TAG],
        summary: 'Book a free slot of a calendar',
        description: [
          'For the chat bot and the voice agent: books the slot starting at `start` in the calendar `calendarId` for the patient, with status `scheduled` and the `origin` the caller names (`api`, `bot` or `voice`). The facility is the calendar’s; the doctor is `doctorId` when given (it must be one of the calendar’s) or the first free one; the chair is the first free one of the calendar.',
          'Answers `201` with the appointment and its `ETag`; a `title` or `reason` in the response is access-logged. Honours `Idempotency-Key`.',
          '`409 no_availability` when the time cannot be booked, with `details.alternatives` (up to 5 nearest free slots, `{start, end, doctorId, chairId}`) and `details.reason`: `slot_taken` (someone booked it meanwhile), or `outside_availability` (not a slot of the calendar: outside working hours, not aligned to the slot grid, before the minimum notice or past the booking horizon).',
          'Of parallel bookings of one slot exactly one wins (a database constraint forbids overlapping appointments of one doctor or chair).',
          'A `calendarId` or `patientId` the key cannot see, or a `doctorId` not of the calendar, is `400` naming the field.',
        ].join('\n\n'),
        headers: Type.Object({ 'idempotency-key': Type.Optional(IdempotencyKeyHeader) }),
        body: BookBody,
        response: { 201: AppointmentSchema },
      },
      config: { scopes: ['appointments:write'], idempotent: true, errorStatuses: [409] },
    },
    async (request, reply) => {
      const row = await bookAppointment(ctx.db, request.auth, request.body);
      setEtag(reply, row.version);
      return reply.status(201).send(await logged(request, toView(row)));
    },
  );

  app.patch(
    '/v1/appointments/:id',
    {
      schema: {
        operationId: 'rescheduleAppointment',
        tags: [TAG],
        summary: 'Move an appointment to another free slot of its calendar',
        description: [
          'Moves the appointment to the slot starting at `start` of the calendar it came from (`calendarId`), optionally with another doctor of the calendar. Records `appointment.rescheduled` with `data.previous`.',
          'Rules of the calendar: `403 forbidden` with `details.reason` `outside_calendar` (the appointment has no calendar: change it from the clinic’s agenda) or `cancellation_notice` (less than the calendar’s cancellation notice before the current start).',
          '`409 conflict` reason `not_reschedulable` when the appointment is not in scheduled, confirmed or pending; `409 no_availability` (`slot_taken` or `outside_availability`, with `details.alternatives`) when the new time cannot be booked; `If-Match` mismatch is `409 version_mismatch`.',
        ].join('\n\n'),
        params: IdParams,
        headers: Type.Object({ 'if-match': Type.Optional(IfMatchHeader) }),
        body: Type.Object({ start: InputTimestamp(), doctorId: Type.Optional(Uuid()) }, { additionalProperties: false }),
        response: { 200: AppointmentSchema },
      },
      config: { reasons: APPOINTMENT_REASONS.apiReschedule, scopes: ['appointments:write'], errorStatuses: [409] },
    },
    async (request, reply) => {
      const row = await rescheduleAppointmentViaApi(ctx.db, request.auth, request.params.id, request.body, expectedVersion(request));
      setEtag(reply, row.version);
      return logged(request, toView(row));
    },
  );

  app.post(
    '/v1/appointments/:id/cancel',
    {
      schema: {
        operationId: 'cancelAppointment',
        tags: [TAG],
        summary: 'Cancel an appointment',
        description: [
          'Cancels the appointment (status `cancelled`, event `appointment.cancelled`). No body.',
          'Rules of the calendar: `403 forbidden` with `details.reason` `outside_calendar` (the appointment has no calendar) or `cancellation_notice` (less than the calendar’s cancellation notice before the start).',
          '`409 conflict` reason `invalid_transition` when the appointment is not in draft, pending, scheduled, confirmed or postponed; `If-Match` mismatch is `409 version_mismatch`.',
        ].join('\n\n'),
        params: IdParams,
        headers: Type.Object({ 'if-match': Type.Optional(IfMatchHeader) }),
        response: { 200: AppointmentSchema },
      },
      config: { reasons: APPOINTMENT_REASONS.apiCancel, scopes: ['appointments:write'], errorStatuses: [409] },
    },
    async (request, reply) => {
      const row = await cancelAppointmentViaApi(ctx.db, request.auth, request.params.id, expectedVersion(request));
      setEtag(reply, row.version);
      return logged(request, toView(row));
    },
  );
}

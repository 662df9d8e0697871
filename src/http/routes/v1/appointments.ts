/** /v1/appointments (spec 2.2, 4.1) and booking through a calendar. */
import { refuseBody } from '../../validation.js';
import type { FastifyRequest } from 'fastify';
import {
  APPOINTMENT_REASONS,
  toView,
  findAppointment,
  listAppointments,
  listFilters,
  AppointmentDetailSchema,
  AppointmentListQuery,
  AppointmentSchema,
  BookAppointmentBody,
  type AppointmentView,
  type ListQuery as PageQuery,
  RescheduleBody,
  bookingBodyIssues,
} from '../../../modules/appointments/index.js';
import type { AppContext } from '../../../context.js';
import { hasScope } from '../../../modules/auth/index.js';
import { ReadCache } from '../../../db/read-cache.js';
import type { Db } from '../../../db/transaction.js';
import type { TenantScope } from '../../../db/tenant.js';
import { book, cancelAppointmentViaApi, rescheduleAppointmentViaApi } from '../../../modules/scheduling/index.js';
import { expectedVersion, setEtag } from '../../etag.js';
import { IdempotencyHeaders, IdParams, IfMatchHeaders, Page } from '../../../core/schemas.js';
import type { App } from '../../types.js';

const TAG = 'Agenda (appointments)';

/** Logged free-text fields of the list and detail (spec 2.1). */
function loggedFields(view: AppointmentView): string[] {
  const fields: string[] = [];
  for (const f of ['title', 'reason', 'notes', 'clinicalNotes', 'completionNotes'] as const) if (view[f] !== undefined && view[f] !== null) fields.push(f);
  return fields;
}

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
    await ctx.accessLog.record(request.actor, { resourceType: 'appointment', resourceIds: [view.id], fields: loggedFields(view) });
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
        querystring: AppointmentListQuery,
        response: { 200: Page(AppointmentSchema) },
      },
      config: { scopes: ['appointments:read'] },
    },
    async (request, reply) => {
      const query: PageQuery = { ...request.query, limit: request.query.limit ?? 50, sort: request.query.sort ?? 'updated' };
      const load = async (db: Db) => {
        // Each appointment's JSON is written by the database (src/modules/appointments/store.ts, APPOINTMENT_JSON).
        const page = await listAppointments(db, request.actor, query);
        return { body: `{"data":[${page.items.join(',')}],"nextCursor":${JSON.stringify(page.nextCursor)}}`, loggedIds: page.loggedIds };
      };
      // With replicas they take the load instead of the page cache: a page read on a replica behind
      // the change feed's last notice would be kept as current (src/db/replicas.ts).
      const { body, loggedIds } = ctx.reads.replicated
        ? await ctx.reads.run(request.actor, load)
        : await pages.get(request.actor.clinicId, pageKey(request.actor, query), () => load(ctx.db));
      // Every read is logged, whether the page came from the cache or not.
      await ctx.accessLog.record(request.actor, { resourceType: 'appointment', resourceIds: loggedIds, fields: ['title', 'reason'] });
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
      config: { etag: true, scopes: ['appointments:read'] },
    },
    async (request, reply) => {
      const row = await findAppointment(ctx.db, request.actor, request.params.id);
      const view = toView(row, hasScope(request.actor, 'clinical:read'));
      await ctx.accessLog.record(request.actor, { resourceType: 'appointment', resourceIds: [row.id], fields: loggedFields(view) });
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
          'For the chat bot and the voice agent: books the slot starting at `start` in the calendar `calendarId` for the patient, with status `scheduled`. The facility is the calendar’s; the doctor is `doctorId` when given (it must be one of the calendar’s) or the first free one; the chair is the first free one of the calendar; `type` and `category` default to the calendar’s.',
          '`origin`: an agent key’s kind decides it whatever the body says (`chat_bot` → `bot`, `voice_agent` → `voice`); a plain key names it (`api` by default).',
          'With `holdId` (a hold this key made with createSlotHold) it books the held slot at the hold’s doctor, and the hold is used up. Sent again for the same patient it answers `200` with the same appointment; for another patient `409 conflict` reason `hold_used`. A hold that lapsed still books if its slot is still free.',
          'Answers `201` with the appointment and its `ETag`; a `title` or `reason` in the response is access-logged. Honours `Idempotency-Key`.',
          'A retry needs no `Idempotency-Key` (platforms that retry a failed request send none): when the patient already has a live appointment (scheduled or confirmed) at exactly this calendar and `start` (and this `doctorId`, when one is named), the booking answers `200` with that appointment instead of `409 slot_taken`, and writes nothing (no second appointment, no second event), whatever else the body says. Another patient still gets `409 no_availability` `slot_taken`.',
          '`409 no_availability` when the time cannot be booked, with `details.alternatives` (up to 5 nearest free slots, `{start, end, doctorId, chairId, localDate, localTime, partOfDay, label}` as the availability gives them) and `details.reason`: `slot_taken` (someone booked or holds it meanwhile; when a hold is in the way, `details.heldUntil` says when the earliest such hold lapses), or `outside_availability` (not a slot of the calendar: outside working hours, not aligned to the slot grid, before the minimum notice or past the booking horizon).',
          'Of parallel bookings and holds of one slot exactly one wins (a database constraint forbids overlapping appointments of one doctor or chair, and bookings and holds take the same schedule locks).',
          '`403 forbidden` reason `not_bookable_by_agent` when the calendar’s `bookableBy` does not include the key’s channel (`api` for a plain key, `bot`, `voice`); `new_patients_not_accepted` when the calendar takes no new patients and the patient has no appointment yet (cancelled ones do not count).',
          'A `calendarId` or `patientId` the key cannot see, a `doctorId` not of the calendar, a `holdId` not of this key, or a missing `calendarId`/`start` without `holdId`, is `400` naming the field.',
        ].join('\n\n'),
        headers: IdempotencyHeaders,
        body: BookAppointmentBody,
        response: { 200: AppointmentSchema, 201: AppointmentSchema },
      },
      config: {
        etag: true,
        reasons: APPOINTMENT_REASONS.apiBook,
        scopes: ['appointments:write'],
        idempotent: true,
        errorStatuses: [409],
        bodyIssues: bookingBodyIssues,
      },
    },
    async (request, reply) => {
      const { row, replayed } = await book(request.db, request.actor, request.body);
      setEtag(reply, row.version);
      return reply.status(replayed ? 200 : 201).send(await logged(request, toView(row)));
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
          'Rules of the calendar: `403 forbidden` with `details.reason` `outside_calendar` (the appointment has no calendar: change it from the clinic’s agenda), `cancellation_notice` (less than the calendar’s cancellation notice before the current start) or `not_bookable_by_agent` (the calendar’s `bookableBy` excludes the key’s channel). An agent key sets `origin` to `bot` or `voice`.',
          'A move to the time the appointment already has (and its doctor, when `doctorId` is named), e.g. the retry of a move that went through, answers the appointment unchanged (`200`, no event), before the cancellation notice is checked.',
          '`409 conflict` reason `not_reschedulable` when the appointment is not in scheduled, confirmed or pending; `409 no_availability` (`slot_taken` or `outside_availability`, with `details.alternatives`) when the new time cannot be booked; `If-Match` mismatch is `409 version_mismatch`.',
        ].join('\n\n'),
        params: IdParams,
        headers: IfMatchHeaders,
        body: RescheduleBody,
        response: { 200: AppointmentSchema },
      },
      config: { etag: true, reasons: APPOINTMENT_REASONS.apiReschedule, scopes: ['appointments:write'], errorStatuses: [409], bodyIssues: false },
    },
    async (request, reply) => {
      const row = await rescheduleAppointmentViaApi(ctx.db, request.actor, request.params.id, request.body, expectedVersion(request));
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
          'Cancels the appointment (status `cancelled`, event `appointment.cancelled`). No body: nothing or `{}`; a body with fields is `400 invalid_request` naming each. An agent key sets `origin` to `bot` or `voice`.',
          'Rules of the calendar: `403 forbidden` with `details.reason` `outside_calendar` (the appointment has no calendar) or `cancellation_notice` (less than the calendar’s cancellation notice before the start).',
          '`409 conflict` reason `invalid_transition` when the appointment is not in draft, pending, scheduled, confirmed or postponed; `If-Match` mismatch is `409 version_mismatch`.',
        ].join('\n\n'),
        params: IdParams,
        headers: IfMatchHeaders,
        response: { 200: AppointmentSchema },
      },
      config: { etag: true, reasons: APPOINTMENT_REASONS.apiCancel, scopes: ['appointments:write'], errorStatuses: [409] },
      preValidation: refuseBody,
    },
    async (request, reply) => {
      const row = await cancelAppointmentViaApi(ctx.db, request.actor, request.params.id, expectedVersion(request));
      setEtag(reply, row.version);
      return logged(request, toView(row));
    },
  );
}

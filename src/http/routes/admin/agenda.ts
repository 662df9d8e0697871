/** Back office: appointments, calendars, facilities, chat, tasks, billing. */
import {
  APPOINTMENT_REASONS,
  TRANSITIONS,
  toView,
  findAppointment,
  AppointmentDetailSchema,
  AppointmentChangesBody,
  AppointmentStatusBody,
  NewAppointmentBody,
  appointmentBodyIssues,
} from '../../../modules/appointments/index.js';
import type { AppContext } from '../../../context.js';
import { changeStatus, createAppointment, updateAppointment } from '../../../modules/scheduling/index.js';
import {
  calendarView,
  createCalendar,
  findCalendar,
  updateCalendar,
  CalendarChangesSchema,
  CalendarSchema,
  NewCalendarSchema,
  calendarBodyIssues,
} from '../../../modules/calendars/index.js';
import { updateFacility, FacilityChangesSchema, FacilitySchema, facilityBodyIssues } from '../../../modules/facilities/index.js';
import { expectedVersion, setEtag } from '../../etag.js';
import { ClinicItemParams, ClinicParams, IfMatchHeaders } from '../../../core/schemas.js';
import type { App } from '../../types.js';
import { registerBillingAdminRoutes } from './agenda-billing.js';
import { registerChatAdminRoutes } from './agenda-chat.js';
import { registerTaskAdminRoutes } from './agenda-tasks.js';

const TAG = 'Agenda (back office)';

const transitionsText = Object.entries(TRANSITIONS)
  .map(([from, to]) => `\`${from}\` → ${to.length ? to.map((t) => `\`${t}\``).join(', ') : '(final)'}`)
  .join('; ');

export function registerAgendaAdminRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;

  // ---- Appointments ----
  app.post(
    '/admin/v1/clinics/:clinicId/appointments',
    {
      config: { clinicActor: true, reasons: APPOINTMENT_REASONS.adminCreate, bodyIssues: appointmentBodyIssues },
      schema: {
        operationId: 'adminCreateAppointment',
        tags: [TAG],
        summary: 'Enter an appointment in the agenda',
        description:
          'Records `appointment.created`. The facility defaults to the chair’s, then the calendar’s, then the patient’s. Initial status: draft, pending, scheduled (default), confirmed, or completed for a past visit entered afterwards (an imported history: its start must be before now, else `400` naming `start`; it records `appointment.created` with that status, and the patient enters the recall list at once when the visit counts under the recall rules). A doctor or chair already in an overlapping live appointment is `409 conflict` (`doctor_busy`, `chair_busy`).',
        params: ClinicParams,
        body: NewAppointmentBody,
        response: { 201: AppointmentDetailSchema },
      },
    },
    async (request, reply) => {
      const row = await createAppointment(db, request.actor, request.body);
      setEtag(reply, row.version);
      return reply.status(201).send(toView(row, true));
    },
  );

  app.get(
    '/admin/v1/clinics/:clinicId/appointments/:id',
    {
      config: { clinicActor: true },
      schema: {
        operationId: 'adminGetAppointment',
        tags: [TAG],
        summary: 'Read an appointment with its notes',
        description: 'The back office sees every field, notes included, with the `ETag` to use as `If-Match`.',
        params: ClinicItemParams,
        response: { 200: AppointmentDetailSchema },
      },
    },
    async (request, reply) => {
      const row = await findAppointment(db, request.actor, request.params.id);
      setEtag(reply, row.version);
      return toView(row, true);
    },
  );

  app.patch(
    '/admin/v1/clinics/:clinicId/appointments/:id',
    {
      config: { clinicActor: true, reasons: APPOINTMENT_REASONS.adminUpdate, bodyIssues: appointmentBodyIssues },
      schema: {
        operationId: 'adminUpdateAppointment',
        tags: [TAG],
        summary: 'Change or reschedule an appointment',
        description:
          'Only the fields sent change. Moving it (start, end, doctor, chair or facility) records `appointment.rescheduled` with `data.previous` (`startTime`, `endTime`, `doctorId`, `chairId`, `facilityId` before the change) and is allowed only in draft, pending, scheduled, confirmed or postponed (`409 conflict`, reason `not_reschedulable`). Overlaps: `409 conflict` `doctor_busy` / `chair_busy`. `If-Match` honoured.',
        params: ClinicItemParams,
        headers: IfMatchHeaders,
        body: AppointmentChangesBody,
        response: { 200: AppointmentDetailSchema },
      },
    },
    async (request, reply) => {
      const row = await updateAppointment(db, request.actor, request.params.id, request.body, expectedVersion(request));
      setEtag(reply, row.version);
      return toView(row, true);
    },
  );

  app.post(
    '/admin/v1/clinics/:clinicId/appointments/:id/status',
    {
      config: { clinicActor: true, reasons: APPOINTMENT_REASONS.adminSetStatus, bodyIssues: false },
      schema: {
        operationId: 'adminSetAppointmentStatus',
        tags: [TAG],
        summary: 'Move an appointment to another status',
        description: `Allowed transitions (our choice): ${transitionsText}. Any other is \`409 conflict\`, reason \`invalid_transition\` (with \`details.from\`, \`details.to\`, \`details.allowed\`). Arrival in confirmed, checked_in, completed, no_show or cancelled records the matching \`appointment.*\` event; a visit completed updates the recall list in the same transaction. Leaving postponed for scheduled may meet \`409 doctor_busy\`/\`chair_busy\`. \`If-Match\` honoured.`,
        params: ClinicItemParams,
        headers: IfMatchHeaders,
        body: AppointmentStatusBody,
        response: { 200: AppointmentDetailSchema },
      },
    },
    async (request, reply) => {
      const row = await changeStatus(db, request.actor, request.params.id, request.body.status, request.body.completionNotes, expectedVersion(request));
      setEtag(reply, row.version);
      return toView(row, true);
    },
  );

  // ---- Calendars ----
  app.post(
    '/admin/v1/clinics/:clinicId/calendars',
    {
      schema: {
        operationId: 'adminCreateCalendar',
        tags: [TAG],
        summary: 'Create a booking calendar',
        description:
          'A calendar is a bookable service of a facility: weekly working hours (clinic timezone, see `workingHours`), slot length, doctors (at least one) and chairs (of the same facility), minimum notice (default 0), booking horizon (default 60 days), cancellation notice (default 0), the appointment `type` and `category` its bookings get, a `description` and `keywords` an agent can match a caller’s words against, who may book it through the API (`bookableBy`, default `api`, `bot`, `voice`) and whether it takes new patients (default true).',
        params: ClinicParams,
        body: NewCalendarSchema,
        response: { 201: CalendarSchema },
      },
      config: { clinicActor: true, bodyIssues: calendarBodyIssues },
    },
    async (request, reply) => {
      const row = await createCalendar(db, request.actor, request.body);
      setEtag(reply, row.version);
      return reply.status(201).send(calendarView(row));
    },
  );

  app.get(
    '/admin/v1/clinics/:clinicId/calendars/:id',
    {
      config: { clinicActor: true },
      schema: {
        operationId: 'adminGetCalendar',
        tags: [TAG],
        summary: 'Read a calendar',
        description: 'The calendar’s rules with its `ETag`.',
        params: ClinicItemParams,
        response: { 200: CalendarSchema },
      },
    },
    async (request, reply) => {
      const row = await findCalendar(db, request.actor, request.params.id);
      setEtag(reply, row.version);
      return calendarView(row);
    },
  );

  app.patch(
    '/admin/v1/clinics/:clinicId/calendars/:id',
    {
      schema: {
        operationId: 'adminUpdateCalendar',
        tags: [TAG],
        summary: 'Change a calendar’s rules',
        description: 'Only the fields sent change; existing appointments stay. `If-Match` honoured.',
        params: ClinicItemParams,
        headers: IfMatchHeaders,
        body: CalendarChangesSchema,
        response: { 200: CalendarSchema },
      },
      config: { clinicActor: true, bodyIssues: calendarBodyIssues },
    },
    async (request, reply) => {
      const row = await updateCalendar(db, request.actor, request.params.id, request.body, expectedVersion(request));
      setEtag(reply, row.version);
      return calendarView(row);
    },
  );

  // ---- Facilities ----
  app.patch(
    '/admin/v1/clinics/:clinicId/facilities/:id',
    {
      schema: {
        operationId: 'adminUpdateFacility',
        tags: [TAG],
        summary: 'Change a facility and its working schedule',
        description:
          'Only the fields sent change. `workingSchedule`: keys `mon`..`sun` (a missing day is closed), each a list of `{open, close}` in `HH:MM` local time, in order and not overlapping; `null` removes it. `If-Match` honoured.',
        params: ClinicItemParams,
        headers: IfMatchHeaders,
        body: FacilityChangesSchema,
        response: { 200: FacilitySchema },
      },
      config: { clinicActor: true, bodyIssues: facilityBodyIssues },
    },
    async (request, reply) => {
      const { view, version } = await updateFacility(db, request.actor, request.params.id, request.body, expectedVersion(request));
      setEtag(reply, version);
      return view;
    },
  );

  registerChatAdminRoutes(app, ctx);
  registerBillingAdminRoutes(app, ctx);
  registerTaskAdminRoutes(app, ctx);
}

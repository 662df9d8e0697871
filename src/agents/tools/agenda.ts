/** The agenda steps: the services, their free slots, holding and booking one, moving and cancelling. */
import { AppointmentListQuery, AppointmentSchema, BookAppointmentBody, RescheduleBody } from '../../modules/appointments/index.js';
import { AvailabilityQuerySchema, AvailabilitySchema, CalendarSchema, CalendarListQuerySchema } from '../../modules/calendars/index.js';
import { HoldSchema, NewHoldSchema } from '../../modules/holds/index.js';
import { IdParams, Page } from '../../core/schemas.js';
import { SAY_TIMES } from '../local-time.js';
import type { AgentTool, Sentence } from '../tool.js';
import { PATIENT_FROM_CONFIRMED } from './identity.js';

/** Too close to the appointment, the clinic must move or cancel it: who the model turns to. */
const TOO_CLOSE: Sentence = {
  text: 'Too close to the appointment (`cancellation_notice`) the clinic must do it: offer hand_off.',
  otherwise: {
    text: 'Too close to the appointment (`cancellation_notice`) the clinic must do it: offer to leave a task for the staff (create_task).',
    otherwise: 'Too close to the appointment (`cancellation_notice`) the clinic must do it: tell the caller to contact the clinic.',
  },
};

const calendarPath = { schema: IdParams, names: { id: 'calendarId' } };
const appointmentPath = { schema: IdParams, names: { id: 'appointmentId' } };

export const AGENDA_TOOLS: AgentTool[] = [
  {
    name: 'list_services',
    title: 'The bookable services',
    description: [
      {
        text: 'The clinic’s bookable services (calendars): name, description, slot length and `keywords`. Match the caller’s words (“una pulizia”, “mi fa male un dente”) against `keywords` and `name` to pick the `calendarId` for find_slots.',
        otherwise:
          'The clinic’s bookable services (calendars): name, description, slot length and `keywords`. Match the caller’s words (“una pulizia”, “mi fa male un dente”) against `keywords` and `name` to pick the `calendarId`.',
      },
      'Skip calendars with `active: false`. When none fits, say which services the clinic offers.',
    ],
    operation: { method: 'GET', url: '/v1/calendars', operationId: 'listCalendars' },
    query: CalendarListQuerySchema,
    output: Page(CalendarSchema),
    unshown: ['updatedSince'],
    audience: 'all',
  },
  {
    name: 'find_slots',
    title: 'Free slots of a service',
    description: [
      {
        text: 'Free slots of a calendar, each with a `label` to say as it is (“martedì 4 marzo alle 9:30”) and `start` to pass to hold_slot.',
        otherwise: 'Free slots of a calendar, each with a `label` to say as it is (“martedì 4 marzo alle 9:30”) and its `start`.',
      },
      SAY_TIMES,
      'Use `spread: "day"` with `limit: 3` to offer three different days; `date` (and `partOfDay`) for the day the caller asks for (“martedì mattina”), or `from`/`to` for a longer span.',
      'When `data` is empty, `emptyReason` says why (`closed`, `fully_booked`, `beyond_horizon`, `calendar_inactive`, `not_bookable_by_agent`): say so, and offer `nextAvailable` when it is given.',
      {
        text: 'Otherwise offer the waitlist (add_to_waitlist).',
        otherwise: {
          text: 'Otherwise offer to hand off to a person (hand_off).',
          otherwise: { text: 'Otherwise offer to leave a task for the staff (create_task).', otherwise: null },
        },
      },
    ],
    operation: { method: 'GET', url: '/v1/calendars/:id/availability', operationId: 'getCalendarAvailability' },
    params: calendarPath,
    query: AvailabilityQuerySchema,
    output: AvailabilitySchema,
    audience: 'all',
  },
  {
    name: 'hold_slot',
    title: 'Hold a slot while the caller confirms',
    description: [
      'Keep the slot the caller likes (`start` from find_slots) while they confirm, so nobody else takes it. A call holds one slot at a time (a new hold replaces it), 15 minutes at most; the calls of one key may each hold one. If a hold is refused (`hold_limit`, `hold_limit_calendar`, `hold_life_exceeded`), book directly with book_appointment.',
      'If the slot was taken meanwhile, the error lists `alternatives`: offer them. Then book with book_appointment and `holdId`, or free it with release_hold.',
      SAY_TIMES,
    ],
    operation: { method: 'POST', url: '/v1/calendars/:id/holds', operationId: 'createSlotHold' },
    params: calendarPath,
    body: NewHoldSchema,
    output: HoldSchema,
    callIdAs: 'holderRef',
    audience: 'all',
  },
  {
    name: 'release_hold',
    title: 'Release a held slot',
    description: ['Free a slot you held when the caller does not want it any more. Releasing a hold that lapsed or was booked changes nothing.'],
    operation: { method: 'DELETE', url: '/v1/holds/:id', operationId: 'releaseSlotHold' },
    params: { schema: IdParams, names: { id: 'holdId' } },
    audience: 'all',
    idempotent: true,
  },
  {
    name: 'book_appointment',
    title: 'Book the appointment',
    description: [
      {
        text: 'Book once the caller has confirmed: `holdId` (from hold_slot) and `patientId`, or `calendarId`, `start` and `patientId`. Read back the day and time and the service.',
        otherwise: 'Book once the caller has confirmed: `calendarId`, `start` and `patientId`. Read back the day and time and the service.',
      },
      'If the time is no longer free, the error lists `alternatives`: offer them. A new patient may be refused (`new_patients_not_accepted`): then offer create_lead.',
      SAY_TIMES,
      PATIENT_FROM_CONFIRMED,
    ],
    operation: { method: 'POST', url: '/v1/appointments', operationId: 'createAppointment' },
    body: BookAppointmentBody,
    output: AppointmentSchema,
    localStart: 'one',
    unshown: ['origin', 'type', 'category'],
    audience: 'all',
    idempotent: true,
  },
  {
    name: 'reschedule_appointment',
    title: 'Move an appointment',
    description: [
      {
        text: 'Move the caller’s appointment (`appointmentId` from list_patient_appointments or get_caller_context) to another free slot `start` of the same service (find_slots with its `calendarId`).',
        otherwise: {
          text: 'Move the caller’s appointment (`appointmentId` from list_patient_appointments) to another free slot `start` of the same service (find_slots with its `calendarId`).',
          otherwise: 'Move the caller’s appointment (`appointmentId`) to another free slot `start` of the same service.',
        },
      },
      TOO_CLOSE,
      SAY_TIMES,
      PATIENT_FROM_CONFIRMED,
    ],
    operation: { method: 'PATCH', url: '/v1/appointments/:id', operationId: 'rescheduleAppointment' },
    params: appointmentPath,
    body: RescheduleBody,
    output: AppointmentSchema,
    localStart: 'one',
    audience: 'all',
    destructive: true,
    idempotent: true,
  },
  {
    name: 'cancel_appointment',
    title: 'Cancel an appointment',
    description: [
      'Cancel the caller’s appointment (`appointmentId`) after they confirm which one (read the day and time back).',
      TOO_CLOSE,
      PATIENT_FROM_CONFIRMED,
    ],
    operation: { method: 'POST', url: '/v1/appointments/:id/cancel', operationId: 'cancelAppointment' },
    params: appointmentPath,
    output: AppointmentSchema,
    localStart: 'one',
    audience: 'all',
    destructive: true,
    idempotent: true,
  },
  {
    name: 'list_patient_appointments',
    title: 'A patient’s appointments',
    description: [
      'The appointments of a patient (`patientId`), for “when is my appointment?” or before moving or cancelling one. Use `sort: "start"` with `from` set to now to get the coming ones first; `status` filters (`scheduled,confirmed`).',
      SAY_TIMES,
      'When there is none, say that you see no appointment booked.',
      PATIENT_FROM_CONFIRMED,
    ],
    operation: { method: 'GET', url: '/v1/appointments', operationId: 'listAppointments' },
    query: AppointmentListQuery,
    alsoRequired: ['patientId'],
    output: Page(AppointmentSchema),
    localStart: 'page',
    unshown: ['updatedSince'],
    audience: 'all',
  },
];

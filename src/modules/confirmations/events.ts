/** The `data` of the confirmation loop's event: ids, times and the clinic's channels (no name, no phone). */
import { Type, type TSchema } from 'typebox';
import { EXAMPLE_IDS, EventDataObject } from '../../core/event-data.js';
import { Nullable, OutputTimestamp, StringEnum, Uuid } from '../../core/schemas.js';
import type { AnyEventType } from '../../events/catalogue.js';
import { localReadingFields } from '../../lib/local-reading.js';
import { CONFIRMATION_CHANNELS } from './schema.js';

const ConfirmationDue = EventDataObject(
  {
    appointmentId: Uuid(),
    patientId: Uuid(),
    facilityId: Nullable(Uuid()),
    calendarId: Nullable(Uuid()),
    start: OutputTimestamp({ description: 'The appointment’s start' }),
    ...localReadingFields('the appointment’s start'),
    step: Type.Integer({ minimum: 0, description: 'Which of the rules’ `steps` is due (0: the first)' }),
    dueAt: OutputTimestamp({ description: 'The step’s asking time (the event follows it, after the quiet hours)' }),
    attempts: Type.Integer({ description: 'Attempts recorded so far for this appointment' }),
    channels: Type.Array(StringEnum(CONFIRMATION_CHANNELS), { description: 'The channels the clinic asks by' }),
  },
  'AppointmentConfirmationDueEventData',
  'Time to ask the patient whether they are coming: once per appointment and rule step. Read the phone with `GET /v1/patients/{patientId}`, send the reminder, and record the answer with `POST /v1/appointments/{appointmentId}/confirmation-attempts`.',
  {
    appointmentId: EXAMPLE_IDS.appointment,
    patientId: EXAMPLE_IDS.patient,
    facilityId: EXAMPLE_IDS.facility,
    calendarId: EXAMPLE_IDS.calendar,
    start: '2026-03-10T08:30:00.000Z',
    localDate: '2026-03-10',
    localTime: '09:30',
    label: 'martedì 10 marzo alle 9:30',
    step: 0,
    dueAt: '2026-03-08T08:30:00.000Z',
    attempts: 0,
    channels: ['sms', 'whatsapp'],
  },
);

/** The schema of `data` for each confirmation event type. */
export const CONFIRMATION_EVENTS = {
  'appointment.confirmation_due': ConfirmationDue,
} satisfies { [T in AnyEventType]?: TSchema };

/**
 * The `data` of the appointment events (spec 6.2, 6.3): the fields spec 6.2 names
 * (`startTime`/`endTime`, not `start`/`end`), never health data (no title, reason or notes).
 */
import { Type, type Static, type TSchema } from 'typebox';
import { EventDataObject, EXAMPLE_IDS as ID } from '../../core/event-data.js';
import { Nullable, OutputTimestamp, StringEnum, Uuid } from '../../core/schemas.js';
import type { AnyEventType } from '../../events/catalogue.js';
import { APPOINTMENT_STATUSES, type AppointmentOrigin, type AppointmentRow, type AppointmentStatus } from './model.js';
import { AppointmentSchema } from './schema.js';

const appointment = AppointmentSchema.properties;
const appointmentFields = {
  id: appointment.id,
  status: StringEnum(APPOINTMENT_STATUSES),
  startTime: OutputTimestamp({ description: 'The REST resource’s `start`' }),
  endTime: OutputTimestamp({ description: 'The REST resource’s `end`' }),
  patientId: appointment.patientId,
  doctorId: appointment.doctorId,
  chairId: appointment.chairId,
  facilityId: appointment.facilityId,
  calendarId: appointment.calendarId,
  treatmentPlanId: appointment.treatmentPlanId,
  origin: appointment.origin,
  createdAt: OutputTimestamp(),
  updatedAt: OutputTimestamp(),
};
const APPOINTMENT_EXAMPLE = {
  id: ID.appointment,
  status: 'scheduled',
  startTime: '2026-03-10T08:30:00.000Z',
  endTime: '2026-03-10T09:15:00.000Z',
  patientId: ID.patient,
  doctorId: ID.doctor,
  chairId: ID.chair,
  facilityId: ID.facility,
  calendarId: ID.calendar,
  treatmentPlanId: null,
  origin: 'api',
  createdAt: '2026-03-02T09:30:00.000Z',
  updatedAt: '2026-03-02T09:30:00.000Z',
};
const appointmentData = (status: string, updatedAt: string) =>
  EventDataObject(appointmentFields, 'AppointmentEventData', 'The appointment without its free text (no title, reason or notes)', {
    ...APPOINTMENT_EXAMPLE,
    status,
    updatedAt,
  });
const AppointmentRescheduled = EventDataObject(
  {
    ...appointmentFields,
    previous: Type.Object(
      {
        startTime: OutputTimestamp(),
        endTime: OutputTimestamp(),
        doctorId: Nullable(Uuid()),
        chairId: Nullable(Uuid()),
        facilityId: Nullable(Uuid()),
      },
      { additionalProperties: false, description: 'Time, doctor, chair and facility before the change' },
    ),
  },
  'AppointmentRescheduledEventData',
  'The appointment as it is now, and in `previous` the values it had before',
  {
    ...APPOINTMENT_EXAMPLE,
    startTime: '2026-03-12T14:00:00.000Z',
    endTime: '2026-03-12T14:45:00.000Z',
    doctorId: ID.otherDoctor,
    updatedAt: '2026-03-04T10:05:00.000Z',
    previous: {
      startTime: APPOINTMENT_EXAMPLE.startTime,
      endTime: APPOINTMENT_EXAMPLE.endTime,
      doctorId: ID.doctor,
      chairId: ID.chair,
      facilityId: ID.facility,
    },
  },
);

/** The schema of `data` for each appointment event type. */
export const APPOINTMENT_EVENTS = {
  'appointment.created': appointmentData('scheduled', APPOINTMENT_EXAMPLE.updatedAt),
  'appointment.rescheduled': AppointmentRescheduled,
  'appointment.confirmed': appointmentData('confirmed', '2026-03-09T18:02:00.000Z'),
  'appointment.cancelled': appointmentData('cancelled', '2026-03-08T12:20:00.000Z'),
  'appointment.checked_in': appointmentData('checked_in', '2026-03-10T08:24:00.000Z'),
  'appointment.completed': appointmentData('completed', '2026-03-10T09:18:00.000Z'),
  'appointment.no_show': appointmentData('no_show', '2026-03-10T09:00:00.000Z'),
} satisfies { [T in AnyEventType]?: TSchema };

/** The `data` of an appointment event of type T. */
type EventData<T extends keyof typeof APPOINTMENT_EVENTS> = Static<(typeof APPOINTMENT_EVENTS)[T]>;

/** Event `data` of spec 6.2: exactly these fields, never health data (no title, reason or notes). */
export function eventData(
  row: Pick<
    AppointmentRow,
    | 'id'
    | 'status'
    | 'start_at'
    | 'end_at'
    | 'patient_id'
    | 'doctor_id'
    | 'chair_id'
    | 'facility_id'
    | 'calendar_id'
    | 'treatment_plan_id'
    | 'origin'
    | 'created_at'
    | 'updated_at'
  >,
): EventData<'appointment.created'> {
  return {
    id: row.id,
    status: row.status as AppointmentStatus,
    startTime: row.start_at.toISOString(),
    endTime: row.end_at.toISOString(),
    patientId: row.patient_id,
    doctorId: row.doctor_id,
    chairId: row.chair_id,
    facilityId: row.facility_id,
    calendarId: row.calendar_id,
    treatmentPlanId: row.treatment_plan_id,
    origin: row.origin as AppointmentOrigin,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

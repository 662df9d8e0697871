/**
 * Appointments on the wire (spec 2.2, 4.1): the schemas /v1 and the back office validate and
 * serialize with, and the types derived from them by `Static<>`.
 */
import { Type, type Static } from 'typebox';
import { InputTimestamp, Nullable, OutputTimestamp, StringEnum, Uuid, PageQueryFields } from '../../core/schemas.js';
import { APPOINTMENT_CATEGORIES, APPOINTMENT_ORIGINS, APPOINTMENT_STATUSES, APPOINTMENT_TYPES } from './model.js';

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

export const AppointmentListQuery = Type.Object(
  {
    ...PageQueryFields,
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

export const BookAppointmentBody = Type.Object(
  {
    calendarId: Type.Optional(Uuid({ description: 'Required without `holdId`; with it, optional and must be the hold’s' })),
    patientId: Uuid(),
    start: Type.Optional(
      InputTimestamp({
        description:
          'Start of a free slot of the calendar (see getCalendarAvailability); the end is start + the calendar’s slot length. Required without `holdId`; with it, optional and must be the hold’s',
      }),
    ),
    holdId: Type.Optional(Uuid({ description: 'A slot hold of this key (createSlotHold): books the held slot' })),
    doctorId: Type.Optional(Uuid({ description: 'A doctor of the calendar; otherwise the first free one' })),
    origin: Type.Optional(
      StringEnum(['api', 'bot', 'voice'] as const, {
        default: 'api',
        description:
          'Who books: `api` (default), `bot` (chat) or `voice` (voice agent). Ignored for an agent key: its kind decides (`chat_bot` → `bot`, `voice_agent` → `voice`)',
      }),
    ),
    type: Type.Optional(Nullable(StringEnum(APPOINTMENT_TYPES, { description: 'Default: the calendar’s appointment type' }))),
    category: Type.Optional(Nullable(StringEnum(APPOINTMENT_CATEGORIES, { description: 'Default: the calendar’s appointment category' }))),
    title: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    reason: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 2000 }))),
  },
  { additionalProperties: false },
);

/** /v1: a move to another start (and doctor) in the same calendar. */
export const RescheduleBody = Type.Object({ start: InputTimestamp(), doctorId: Type.Optional(Uuid()) }, { additionalProperties: false });
export type RescheduleInput = Static<typeof RescheduleBody>;

// ---- Back office ----

const Text = (max: number) => Nullable(Type.String({ minLength: 1, maxLength: max }));

/** What the back office may set on an appointment, entered or changed (each optional). */
const AppointmentDetailFields = {
  type: Type.Optional(Nullable(StringEnum(APPOINTMENT_TYPES))),
  category: Type.Optional(Nullable(StringEnum(APPOINTMENT_CATEGORIES))),
  title: Type.Optional(Text(200)),
  reason: Type.Optional(Text(2000)),
  notes: Type.Optional(Text(5000)),
  clinicalNotes: Type.Optional(Text(20000)),
};

/** Back office: an appointment entered in the agenda (times as given, the rest to be checked). */
export const NewAppointmentBody = Type.Object(
  {
    patientId: Uuid(),
    start: InputTimestamp(),
    end: InputTimestamp(),
    facilityId: Type.Optional(Nullable(Uuid())),
    doctorId: Type.Optional(Nullable(Uuid())),
    chairId: Type.Optional(Nullable(Uuid())),
    calendarId: Type.Optional(Nullable(Uuid())),
    treatmentPlanId: Type.Optional(Nullable(Uuid())),
    status: Type.Optional(
      StringEnum(['draft', 'pending', 'scheduled', 'confirmed', 'completed'] as const, {
        description: 'Default `scheduled`. `completed` enters a past visit (an imported history): its start must be before now',
      }),
    ),
    ...AppointmentDetailFields,
    origin: Type.Optional(StringEnum(APPOINTMENT_ORIGINS)),
  },
  { additionalProperties: false },
);
export type NewAppointment = Static<typeof NewAppointmentBody>;

/** Back office: a change of an appointment (only the fields sent change). */
export const AppointmentChangesBody = Type.Object(
  {
    start: Type.Optional(InputTimestamp()),
    end: Type.Optional(InputTimestamp()),
    facilityId: Type.Optional(Nullable(Uuid())),
    doctorId: Type.Optional(Nullable(Uuid())),
    chairId: Type.Optional(Nullable(Uuid())),
    treatmentPlanId: Type.Optional(Nullable(Uuid())),
    ...AppointmentDetailFields,
    completionNotes: Type.Optional(Text(20000)),
  },
  { additionalProperties: false },
);
export type AppointmentChanges = Static<typeof AppointmentChangesBody>;

/** Back office: a move to another status (the transitions of model.ts). */
export const AppointmentStatusBody = Type.Object(
  { status: StringEnum(APPOINTMENT_STATUSES), completionNotes: Type.Optional(Text(20000)) },
  { additionalProperties: false },
);

/** An appointment as the API shows it; the notes only with `clinical:read`. */
export type AppointmentView = Static<typeof AppointmentDetailSchema>;
/** A booking through a calendar (or the slot of a hold). */
export type BookInput = Static<typeof BookAppointmentBody>;
/** The list's query, with the defaults the route applies. */
export type ListQuery = Static<typeof AppointmentListQuery> & { limit: number; sort: 'updated' | 'start' };

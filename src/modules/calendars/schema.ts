/**
 * A calendar is the bookable service: its TypeBox schema, shared by the /v1 reads
 * and the back office, and the fields the back office and the CLI set.
 */
import { Type, type Static } from 'typebox';
import { BOOKING_CHANNELS } from '../../core/actor.js';
import { DateOnly, InputTimestamp, Nullable, OutputTimestamp, StringEnum, UpdatedListQueryFields, Uuid } from '../../core/schemas.js';
import { APPOINTMENT_CATEGORIES, APPOINTMENT_TYPES } from '../../core/agenda.js';
import { WeekScheduleSchema } from '../facilities/index.js';
import { PARTS_OF_DAY } from '../../lib/local-reading.js';

export const CalendarSchema = Type.Object(
  {
    id: Uuid(),
    facilityId: Uuid(),
    name: Type.String(),
    description: Nullable(Type.String({ description: 'What the service is, in words an agent can read out' })),
    slotMinutes: Type.Integer({ description: 'Slot length in minutes' }),
    type: Nullable(StringEnum(APPOINTMENT_TYPES, { description: 'Appointment type of its bookings' })),
    category: Nullable(StringEnum(APPOINTMENT_CATEGORIES, { description: 'Appointment category of its bookings' })),
    workingHours: WeekScheduleSchema,
    doctorIds: Type.Array(Uuid()),
    chairIds: Type.Array(Uuid()),
    minNoticeMinutes: Type.Integer(),
    horizonDays: Type.Integer(),
    cancellationNoticeMinutes: Type.Integer(),
    bookableBy: Type.Array(StringEnum(BOOKING_CHANNELS), {
      description: 'Who may book it through the API: `api` (plain keys), `bot` (chat bot keys), `voice` (voice agent keys)',
    }),
    takesNewPatients: Type.Boolean({ description: 'false: only patients with an appointment already (not cancelled) can book it' }),
    keywords: Type.Array(Type.String(), { description: 'Words an agent can match a caller’s words against' }),
    active: Type.Boolean(),
    createdAt: OutputTimestamp(),
    updatedAt: OutputTimestamp(),
  },
  {
    additionalProperties: false,
    title: 'Calendar',
    examples: [
      {
        id: '5b0c2f1e-8a7d-4c3b-9e2f-1a0b9c8d7e6f',
        facilityId: '0f4a3b2c-1d0e-4f9a-8b7c-6d5e4f3a2b1c',
        name: 'Igiene orale',
        description: 'Pulizia professionale dei denti con l’igienista (45 minuti).',
        slotMinutes: 45,
        type: 'treatment',
        category: 'standard',
        workingHours: { mon: [{ open: '09:00', close: '13:00' }], wed: [{ open: '14:00', close: '18:00' }] },
        doctorIds: ['2c9e8f7a-6b5d-4c3e-8f1a-9b0c7d6e5f4a'],
        chairIds: ['8e7d6c5b-4a3f-4e2d-9c1b-0a9f8e7d6c5b'],
        minNoticeMinutes: 120,
        horizonDays: 60,
        cancellationNoticeMinutes: 1440,
        bookableBy: ['api', 'bot', 'voice'],
        takesNewPatients: true,
        keywords: ['pulizia', 'igiene', 'detartrasi', 'tartaro'],
        active: true,
        createdAt: '2026-01-10T09:00:00.000Z',
        updatedAt: '2026-02-01T09:00:00.000Z',
      },
    ],
  },
);
export type CalendarView = Static<typeof CalendarSchema>;

/** The fields the back office (and so the CLI) sets; all optional on a change. */
const calendarFields = {
  facilityId: Uuid(),
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Nullable(Type.String({ minLength: 1, maxLength: 2000 })),
  slotMinutes: Type.Integer({ minimum: 5, maximum: 480, description: 'Slot length in minutes' }),
  type: Nullable(StringEnum(APPOINTMENT_TYPES)),
  category: Nullable(StringEnum(APPOINTMENT_CATEGORIES)),
  workingHours: WeekScheduleSchema,
  doctorIds: Type.Array(Uuid(), { minItems: 1, maxItems: 50, description: 'Doctors whose time the calendar books (at least one)' }),
  chairIds: Type.Array(Uuid(), { maxItems: 50, description: 'Chairs of the calendar’s facility; empty: bookings take no chair' }),
  minNoticeMinutes: Type.Integer({ minimum: 0, maximum: 525600, description: 'A slot must start at least this long after now' }),
  horizonDays: Type.Integer({ minimum: 1, maximum: 730, description: 'A slot must start within this many days from now' }),
  cancellationNoticeMinutes: Type.Integer({
    minimum: 0,
    maximum: 525600,
    description: 'Through the API, an appointment can be moved or cancelled only this long before its start',
  }),
  bookableBy: Type.Array(StringEnum(BOOKING_CHANNELS), {
    maxItems: 3,
    uniqueItems: true,
    description: 'Who may book it through the API (default all three); empty: only the clinic itself',
  }),
  takesNewPatients: Type.Boolean({ description: 'Default true' }),
  keywords: Type.Array(Type.String({ minLength: 1, maxLength: 60 }), { maxItems: 50, description: 'Words an agent can match a caller’s words against' }),
  active: Type.Boolean({ description: 'An inactive calendar offers no slots' }),
};

const optional = Object.fromEntries(Object.entries(calendarFields).map(([k, v]) => [k, Type.Optional(v)])) as {
  [K in keyof typeof calendarFields]: ReturnType<typeof Type.Optional<(typeof calendarFields)[K]>>;
};

export const NewCalendarSchema = Type.Object(
  {
    ...optional,
    facilityId: calendarFields.facilityId,
    name: calendarFields.name,
    slotMinutes: calendarFields.slotMinutes,
    workingHours: calendarFields.workingHours,
    doctorIds: calendarFields.doctorIds,
  },
  { additionalProperties: false },
);
export const CalendarChangesSchema = Type.Object(optional, { additionalProperties: false });
export type NewCalendar = Static<typeof NewCalendarSchema>;
export type CalendarChanges = Static<typeof CalendarChangesSchema>;

/** A free slot of a calendar, in UTC and in the clinic's words (what an agent says to a caller). */
const SlotSchema = Type.Object(
  {
    start: OutputTimestamp(),
    end: OutputTimestamp(),
    doctorId: Nullable(Uuid()),
    chairId: Nullable(Uuid()),
    localDate: Type.String({ description: '`YYYY-MM-DD` in the clinic’s time zone' }),
    localTime: Type.String({ description: '`HH:MM` in the clinic’s time zone' }),
    partOfDay: StringEnum(PARTS_OF_DAY, { description: '`morning` before 13:00, `afternoon` before 18:00, `evening` after (local time)' }),
    label: Type.String({ description: 'The slot in Italian words, to be read out', examples: ['martedì 4 marzo alle 9:30'] }),
  },
  { additionalProperties: false, title: 'Slot' },
);

/** Why a window holds no free slot. */
export const EMPTY_REASONS = ['calendar_inactive', 'not_bookable_by_agent', 'beyond_horizon', 'closed', 'fully_booked'] as const;
/** How the free slots may be thinned: the first of each day, or of each part of each day. */
const SPREADS = ['day', 'part_of_day'] as const;

/** /v1/calendars/{id}/availability: the window and the thinning asked for. */
export const AvailabilityQuerySchema = Type.Object(
  {
    from: Type.Optional(InputTimestamp({ description: 'Start of the window (default now); not with `date`' })),
    to: Type.Optional(InputTimestamp({ description: 'End of the window, exclusive (default `from` + 7 days); not with `date`' })),
    date: Type.Optional(
      DateOnly({
        description: 'A day in the clinic’s time zone (`YYYY-MM-DD`): the window is that local day, instead of `from`/`to`',
        examples: ['2027-03-09'],
      }),
    ),
    partOfDay: Type.Optional(
      StringEnum(PARTS_OF_DAY, {
        description: 'With `date`: only that part of the local day, `morning` 00:00-13:00, `afternoon` 13:00-18:00, `evening` 18:00-24:00',
      }),
    ),
    doctorId: Type.Optional(Uuid({ description: 'Only slots of this doctor of the calendar' })),
    spread: Type.Optional(StringEnum(SPREADS, { description: '`day`: the first free slot of each day; `part_of_day`: of each part of each day' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'At most this many slots (after `spread`); default all' })),
  },
  { additionalProperties: false },
);
export type AvailabilityQuery = Static<typeof AvailabilityQuerySchema>;

export const AvailabilitySchema = Type.Object(
  {
    calendarId: Uuid(),
    slotMinutes: Type.Integer(),
    window: Nullable(Type.Object({ from: OutputTimestamp(), to: OutputTimestamp() }, { additionalProperties: false })),
    data: Type.Array(SlotSchema),
    emptyReason: Nullable(StringEnum(EMPTY_REASONS)),
    nextAvailable: Nullable(SlotSchema),
  },
  { additionalProperties: false },
);

/** GET /v1/calendars (directory.ts): a page by last modification, of a facility or of a doctor. */
export const CalendarListQuerySchema = Type.Object(
  {
    ...UpdatedListQueryFields,
    facilityId: Type.Optional(Uuid({ description: 'Only calendars of this facility' })),
    doctorId: Type.Optional(Uuid({ description: 'Only calendars this doctor works in' })),
  },
  { additionalProperties: false },
);
export type CalendarListQuery = Static<typeof CalendarListQuerySchema>;

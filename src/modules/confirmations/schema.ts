/** The confirmation loop on the wire: the rules, the worklist, the attempts. */
import { Type, type Static } from 'typebox';
import { InputTimestamp, Nullable, OutputTimestamp, PageQueryFields, StringEnum, Uuid } from '../../core/schemas.js';
import { APPOINTMENT_CATEGORIES } from '../appointments/index.js';
import { CONTACT_CHANNELS } from '../waitlist/index.js';
import { LocalReadingSchema, localReadingFields } from '../../lib/local-reading.js';
import { LocalTimeOfDay } from '../../lib/quiet-hours.js';

/** The roads a patient is asked and answers by: the waitlist's contact channels, and the chat. */
export const CONFIRMATION_CHANNELS = [...CONTACT_CHANNELS, 'chat'] as const;
export type ConfirmationChannel = (typeof CONFIRMATION_CHANNELS)[number];

export const CONFIRMATION_OUTCOMES = ['confirmed', 'cancel_requested', 'reschedule_requested', 'no_answer', 'voicemail', 'wrong_number', 'opted_out'] as const;
export type ConfirmationOutcome = (typeof CONFIRMATION_OUTCOMES)[number];

/** The appointment statuses an answer may still change (a cancelled, missed or past visit is settled). */
export const ANSWERABLE_STATUSES = ['scheduled', 'confirmed'] as const;

const Step = Type.Object(
  {
    hoursBefore: Type.Optional(Type.Integer({ minimum: 1, maximum: 336, description: 'Ask this many hours before the start' })),
    daysBefore: Type.Optional(Type.Integer({ minimum: 1, maximum: 14, description: 'Ask this many days before the appointment’s local date, at `at`' })),
    at: Type.Optional(LocalTimeOfDay('With `daysBefore`: the local time (clinic time zone) to ask at', '18:00')),
  },
  {
    additionalProperties: false,
    description: 'One moment to ask: `{hoursBefore}`, or `{daysBefore, at}` (e.g. the evening before: `{daysBefore: 1, at: "18:00"}`)',
  },
);

export const ConfirmationRulesSchema = Type.Object(
  {
    steps: Type.Array(Step, {
      minItems: 1,
      maxItems: 5,
      description: 'When to ask, each step once (`appointment.confirmation_due` at each): e.g. 48 h and again 24 h before, or the evening before',
    }),
    calendarIds: Type.Array(Uuid(), {
      maxItems: 100,
      uniqueItems: true,
      description: 'Only appointments of these calendars (services); empty: every appointment, those entered without a calendar too',
    }),
    categories: Type.Array(StringEnum(APPOINTMENT_CATEGORIES), {
      maxItems: 20,
      uniqueItems: true,
      description: 'Only appointments of these categories; empty: every category',
    }),
    channels: Type.Array(StringEnum(CONFIRMATION_CHANNELS), {
      minItems: 1,
      uniqueItems: true,
      description:
        'The channels the clinic asks by (in the worklist and the event, for the agents and integrations to choose); an answer is recorded by whatever road it came',
    }),
    maxAttempts: Type.Integer({ minimum: 1, maximum: 10, description: 'Attempts per appointment at most; after them the appointment leaves the list' }),
    retryAfterMinutes: Type.Integer({ minimum: 15, maximum: 1440, description: 'After `no_answer` or `voicemail`, the next attempt no sooner than this' }),
    quietStart: LocalTimeOfDay('Local time (clinic time zone) from which nobody is contacted'),
    quietEnd: LocalTimeOfDay('Local time until which nobody is contacted', '09:00'),
  },
  {
    additionalProperties: false,
    title: 'ConfirmationRules',
    examples: [
      {
        steps: [{ hoursBefore: 48 }, { daysBefore: 1, at: '18:00' }],
        calendarIds: [],
        categories: [],
        channels: ['phone', 'sms', 'whatsapp'],
        maxAttempts: 3,
        retryAfterMinutes: 120,
        quietStart: '20:00',
        quietEnd: '09:00',
      },
    ],
  },
);
export type ConfirmationRules = Static<typeof ConfirmationRulesSchema>;

export const ConfirmationListQuerySchema = Type.Object(
  {
    ...PageQueryFields,
    dueBefore: Type.Optional(InputTimestamp({ description: 'Appointments whose first asking time is before this instant (default: now)' })),
    facilityId: Type.Optional(Uuid({ description: 'Only appointments of this facility' })),
  },
  { additionalProperties: false },
);
export type ConfirmationListQuery = Static<typeof ConfirmationListQuerySchema> & { limit: number };

export const ConfirmationSchema = Type.Object(
  {
    appointmentId: Uuid(),
    patientId: Uuid(),
    facilityId: Nullable(Uuid()),
    firstName: Nullable(Type.String({ description: 'Only the first name: what the caller says' })),
    phone: Nullable(Type.String({ description: 'E.164' })),
    start: OutputTimestamp({ description: 'The appointment’s start' }),
    ...localReadingFields('the appointment’s start'),
    service: Type.Object(
      {
        calendarId: Nullable(Uuid()),
        name: Nullable(Type.String({ description: 'The calendar’s name (the service as the clinic says it)' })),
        type: Nullable(Type.String()),
        category: Nullable(Type.String()),
      },
      { additionalProperties: false, description: 'What the appointment is for' },
    ),
    channels: Type.Array(StringEnum(CONFIRMATION_CHANNELS), { description: 'The channels the clinic asks by (its rules)' }),
    attempts: Type.Integer({ description: 'Attempts so far' }),
    lastOutcome: Nullable(StringEnum(CONFIRMATION_OUTCOMES)),
    nextAttemptAt: OutputTimestamp({
      description: 'The first instant an attempt is allowed: the first asking time, or the retry delay after the last attempt, moved past the quiet hours',
    }),
    nextAttemptAtLocal: LocalReadingSchema('`nextAttemptAt`'),
  },
  {
    additionalProperties: false,
    title: 'Confirmation',
    examples: [
      {
        appointmentId: '7c8d9e0f-1a2b-4c3d-8e4f-5a6b7c8d9e0f',
        patientId: '2a4b6c8d-1e3f-4a5b-9c7d-8e9f0a1b2c3d',
        facilityId: '5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f',
        firstName: 'Giulia',
        phone: '+393331234567',
        start: '2026-03-05T08:30:00.000Z',
        localDate: '2026-03-05',
        localTime: '09:30',
        label: 'giovedì 5 marzo alle 9:30',
        service: { calendarId: 'c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e6f', name: 'Igiene dentale', type: 'hygiene', category: 'recall' },
        channels: ['phone', 'sms'],
        attempts: 1,
        lastOutcome: 'no_answer',
        nextAttemptAt: '2026-03-03T12:00:00.000Z',
        nextAttemptAtLocal: { localDate: '2026-03-03', localTime: '13:00', label: 'martedì 3 marzo alle 13:00' },
      },
    ],
  },
);
export type ConfirmationView = Static<typeof ConfirmationSchema>;

export const NewConfirmationAttemptSchema = Type.Object(
  {
    channel: StringEnum(CONFIRMATION_CHANNELS),
    outcome: StringEnum(CONFIRMATION_OUTCOMES),
    externalCallId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'The call’s id at the telephony provider, or the message’s id at the SMS/WhatsApp/chat provider: the attempt is recorded once per id',
      }),
    ),
    note: Type.Optional(Type.String({ maxLength: 500 })),
  },
  {
    additionalProperties: false,
    examples: [{ channel: 'phone', outcome: 'confirmed', externalCallId: 'CA9f8e7d6c5b4a' }],
  },
);
export type NewConfirmationAttempt = Static<typeof NewConfirmationAttemptSchema>;

export const ConfirmationAttemptSchema = Type.Object(
  {
    id: Uuid(),
    appointmentId: Uuid(),
    patientId: Uuid(),
    channel: StringEnum(CONFIRMATION_CHANNELS),
    outcome: StringEnum(CONFIRMATION_OUTCOMES),
    appointmentStatus: Type.String({ description: 'The appointment’s status once the outcome applied (`confirmed`, `cancelled`, or unchanged)' }),
    taskId: Nullable(Uuid({ description: 'The `confirmation` task a `reschedule_requested` created for the clinic' })),
    externalCallId: Nullable(Type.String()),
    note: Nullable(Type.String()),
    createdAt: OutputTimestamp(),
  },
  {
    additionalProperties: false,
    title: 'ConfirmationAttempt',
    examples: [
      {
        id: '4b5c6d7e-8f9a-4b0c-9d1e-2f3a4b5c6d7e',
        appointmentId: '7c8d9e0f-1a2b-4c3d-8e4f-5a6b7c8d9e0f',
        patientId: '2a4b6c8d-1e3f-4a5b-9c7d-8e9f0a1b2c3d',
        channel: 'phone',
        outcome: 'confirmed',
        appointmentStatus: 'confirmed',
        taskId: null,
        externalCallId: 'CA9f8e7d6c5b4a',
        note: null,
        createdAt: '2026-03-03T10:00:00.000Z',
      },
    ],
  },
);
export type ConfirmationAttemptView = Static<typeof ConfirmationAttemptSchema>;

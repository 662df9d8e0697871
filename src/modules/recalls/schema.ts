/** The recall worklist on the wire: rules, the due list, attempts. */
import { Type, type Static } from 'typebox';
import { InputTimestamp, Nullable, OutputTimestamp, PageQueryFields, StringEnum, Uuid } from '../../core/schemas.js';
import { APPOINTMENT_CATEGORIES, APPOINTMENT_TYPES } from '../appointments/index.js';
import { CONTACT_CHANNELS } from '../waitlist/index.js';
import { LocalReadingSchema, NullableLocalReading } from '../../lib/local-reading.js';

export const RECALL_OUTCOMES = ['booked', 'no_answer', 'voicemail', 'callback', 'declined', 'wrong_number', 'opted_out'] as const;
export type RecallOutcome = (typeof RECALL_OUTCOMES)[number];

/** How long an outcome keeps a patient out of the list (hours); `callback` and `booked` snooze until their own time. */
export const SNOOZE_HOURS = { no_answer: 24, voicemail: 48, declined: 90 * 24 } as const;

const HHMM = (description: string) => Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description, examples: ['20:00'] });

export const RecallRulesSchema = Type.Object(
  {
    categories: Type.Array(StringEnum(APPOINTMENT_CATEGORIES), {
      maxItems: 20,
      uniqueItems: true,
      description: 'Appointment categories whose completed visits count (e.g. `recall`)',
    }),
    types: Type.Array(StringEnum(APPOINTMENT_TYPES), {
      maxItems: 20,
      uniqueItems: true,
      description: 'Appointment types whose completed visits count (e.g. `checkup`)',
    }),
    intervalMonths: Type.Integer({ minimum: 1, maximum: 60, description: 'A patient is due this many months after the last qualifying visit' }),
    maxAttemptsPerWeek: Type.Integer({ minimum: 1, maximum: 21, description: 'Attempts in any 7 days at most' }),
    quietStart: HHMM('Local time (clinic time zone) from which nobody is contacted'),
    quietEnd: HHMM('Local time until which nobody is contacted'),
  },
  {
    additionalProperties: false,
    title: 'RecallRules',
    examples: [{ categories: ['recall'], types: ['checkup'], intervalMonths: 6, maxAttemptsPerWeek: 3, quietStart: '20:00', quietEnd: '09:00' }],
  },
);
export type RecallRules = Static<typeof RecallRulesSchema>;

export const RecallListQuerySchema = Type.Object(
  {
    ...PageQueryFields,
    dueBefore: Type.Optional(InputTimestamp({ description: 'Patients due before this instant (default: now)' })),
    facilityId: Type.Optional(Uuid({ description: 'Only patients of this facility' })),
  },
  { additionalProperties: false },
);
export type RecallListQuery = Static<typeof RecallListQuerySchema> & { limit: number };

export const RecallSchema = Type.Object(
  {
    patientId: Uuid(),
    facilityId: Nullable(Uuid()),
    firstName: Nullable(Type.String({ description: 'Only the first name: what the caller says' })),
    phone: Nullable(Type.String({ description: 'E.164' })),
    lastVisitAt: OutputTimestamp({ description: 'The last completed qualifying visit' }),
    due: Type.Object(
      { category: Nullable(Type.String()), type: Nullable(Type.String()) },
      { additionalProperties: false, description: 'What is due: the category and type of the last qualifying visit' },
    ),
    dueAt: OutputTimestamp({ description: 'Last visit plus the interval' }),
    attempts: Type.Integer({ description: 'Attempts so far' }),
    lastAttemptAt: Nullable(OutputTimestamp()),
    lastOutcome: Nullable(StringEnum(RECALL_OUTCOMES)),
    nextAttemptAt: OutputTimestamp({
      description: 'The first instant an attempt is allowed: now, or the end of the quiet hours, or when the weekly limit frees up',
    }),
    lastVisitAtLocal: LocalReadingSchema('`lastVisitAt`'),
    dueAtLocal: LocalReadingSchema('`dueAt`'),
    lastAttemptAtLocal: NullableLocalReading('`lastAttemptAt`'),
    nextAttemptAtLocal: LocalReadingSchema('`nextAttemptAt`'),
  },
  {
    additionalProperties: false,
    title: 'Recall',
    examples: [
      {
        patientId: '2a4b6c8d-1e3f-4a5b-9c7d-8e9f0a1b2c3d',
        facilityId: '5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f',
        firstName: 'Giulia',
        phone: '+393331234567',
        lastVisitAt: '2025-08-12T08:30:00.000Z',
        due: { category: 'recall', type: 'checkup' },
        dueAt: '2026-02-12T08:30:00.000Z',
        attempts: 1,
        lastAttemptAt: '2026-03-01T10:00:00.000Z',
        lastOutcome: 'no_answer',
        nextAttemptAt: '2026-03-03T08:00:00.000Z',
        lastVisitAtLocal: { localDate: '2025-08-12', localTime: '10:30', label: 'martedì 12 agosto alle 10:30' },
        dueAtLocal: { localDate: '2026-02-12', localTime: '09:30', label: 'giovedì 12 febbraio alle 9:30' },
        lastAttemptAtLocal: { localDate: '2026-03-01', localTime: '11:00', label: 'domenica 1 marzo alle 11:00' },
        nextAttemptAtLocal: { localDate: '2026-03-03', localTime: '09:00', label: 'martedì 3 marzo alle 9:00' },
      },
    ],
  },
);
export type RecallView = Static<typeof RecallSchema>;

export const NewRecallAttemptSchema = Type.Object(
  {
    channel: StringEnum(CONTACT_CHANNELS),
    outcome: StringEnum(RECALL_OUTCOMES),
    appointmentId: Type.Optional(Uuid({ description: 'With `booked` (required then): the patient’s appointment' })),
    callbackAt: Type.Optional(InputTimestamp({ description: 'With `callback` (required then, in the future): when to call back' })),
    externalCallId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'The call’s id at the telephony provider: the attempt is recorded once per id' }),
    ),
    note: Type.Optional(Type.String({ maxLength: 500 })),
  },
  {
    additionalProperties: false,
    examples: [{ channel: 'phone', outcome: 'callback', callbackAt: '2026-03-04T16:00:00Z', externalCallId: 'CA9f8e7d6c5b4a', note: 'Richiamare dopo le 17' }],
  },
);
export type NewRecallAttempt = Static<typeof NewRecallAttemptSchema>;

export const RecallAttemptSchema = Type.Object(
  {
    id: Uuid(),
    patientId: Uuid(),
    channel: StringEnum(CONTACT_CHANNELS),
    outcome: StringEnum(RECALL_OUTCOMES),
    appointmentId: Nullable(Uuid()),
    callbackAt: Nullable(OutputTimestamp()),
    taskId: Nullable(Uuid({ description: 'The `recall` task a callback created' })),
    externalCallId: Nullable(Type.String()),
    note: Nullable(Type.String()),
    createdAt: OutputTimestamp(),
  },
  {
    additionalProperties: false,
    title: 'RecallAttempt',
    examples: [
      {
        id: '4b5c6d7e-8f9a-4b0c-9d1e-2f3a4b5c6d7e',
        patientId: '2a4b6c8d-1e3f-4a5b-9c7d-8e9f0a1b2c3d',
        channel: 'phone',
        outcome: 'callback',
        appointmentId: null,
        callbackAt: '2026-03-04T16:00:00.000Z',
        taskId: '1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
        externalCallId: 'CA9f8e7d6c5b4a',
        note: 'Richiamare dopo le 17',
        createdAt: '2026-03-03T10:00:00.000Z',
      },
    ],
  },
);
export type RecallAttemptView = Static<typeof RecallAttemptSchema>;

export const RecallAttemptListQuerySchema = Type.Object({ ...PageQueryFields }, { additionalProperties: false });
export type RecallAttemptListQuery = Static<typeof RecallAttemptListQuerySchema> & { limit: number };

export const RecallPatientParams = Type.Object({ patientId: Uuid() }, { additionalProperties: false });

/** The voice agent's operations: the context of a ringing call and the handoff to a person. */
import { Type, type Static } from 'typebox';
import { Nullable, OutputTimestamp, StringEnum, Uuid } from '../../core/schemas.js';
import { localReadingFields, NullableLocalReading } from '../../lib/local-reading.js';
import { CALLER_NUMBER_PATTERN } from '../../lib/phone.js';

export const VoiceContextQuerySchema = Type.Object(
  {
    from: Type.String({ minLength: 3, maxLength: 32, pattern: CALLER_NUMBER_PATTERN, description: 'The caller’s number in any format, or `anonymous`' }),
    to: Type.Optional(
      Type.String({ minLength: 3, maxLength: 32, pattern: CALLER_NUMBER_PATTERN, description: 'The number called: picks the facility whose phone it is' }),
    ),
  },
  { additionalProperties: false },
);
export type VoiceContextQuery = Static<typeof VoiceContextQuerySchema>;

const NextAppointment = Type.Object(
  {
    id: Uuid(),
    start: OutputTimestamp(),
    calendarName: Nullable(Type.String({ description: 'The service booked; null outside any calendar' })),
    ...localReadingFields('the appointment’s start'),
  },
  { additionalProperties: false },
);

export const VoiceContextSchema = Type.Object(
  {
    clinic: Type.Object(
      {
        name: Type.String(),
        timezone: Type.String(),
        facilityId: Nullable(Uuid({ description: 'The facility called (by `to`), else the main one the key sees' })),
        facilityName: Nullable(Type.String()),
        openNow: Type.Boolean(),
        closesAt: Nullable(OutputTimestamp({ description: 'When the current opening ends' })),
        nextOpening: Nullable(OutputTimestamp({ description: 'The next opening after now (within two weeks)' })),
        closesAtLocal: NullableLocalReading('`closesAt`'),
        nextOpeningLocal: NullableLocalReading('`nextOpening`'),
      },
      { additionalProperties: false },
    ),
    caller: Type.Object(
      {
        match: StringEnum(['patient', 'lead', 'unknown'] as const),
        phone: Nullable(Type.String({ description: 'E.164; null when the number is hidden' })),
        patients: Type.Array(
          Type.Object(
            { id: Uuid(), firstName: Nullable(Type.String()), nextAppointments: Type.Array(NextAppointment, { maxItems: 3 }) },
            { additionalProperties: false },
          ),
          { maxItems: 5, description: 'Active patients with this number (a family may share one), most recently updated first' },
        ),
        lead: Nullable(Type.Object({ id: Uuid(), firstName: Type.String() }, { additionalProperties: false, description: 'Only when no patient matched' })),
      },
      { additionalProperties: false },
    ),
    transfer: Type.Object(
      {
        possible: Type.Boolean({ description: 'The facility is open now and has a phone: a person can take the call' }),
        number: Nullable(Type.String({ description: 'Where to transfer to (E.164), when possible' })),
      },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    title: 'VoiceContext',
    examples: [
      {
        clinic: {
          name: 'Studio Dentistico Sorriso',
          timezone: 'Europe/Rome',
          facilityId: '0f4a3b2c-1d0e-4f9a-8b7c-6d5e4f3a2b1c',
          facilityName: 'Sede di Milano',
          openNow: true,
          closesAt: '2026-03-02T12:00:00.000Z',
          nextOpening: '2026-03-02T13:00:00.000Z',
          closesAtLocal: { localDate: '2026-03-02', localTime: '13:00', label: 'lunedì 2 marzo alle 13:00' },
          nextOpeningLocal: { localDate: '2026-03-02', localTime: '14:00', label: 'lunedì 2 marzo alle 14:00' },
        },
        caller: {
          match: 'patient',
          phone: '+393331234567',
          patients: [
            {
              id: '6f5e4d3c-2b1a-4098-8f7e-6d5c4b3a2918',
              firstName: 'Giulia',
              nextAppointments: [
                {
                  id: '3a2b1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d',
                  start: '2026-03-04T08:30:00.000Z',
                  calendarName: 'Igiene orale',
                  localDate: '2026-03-04',
                  localTime: '09:30',
                  label: 'mercoledì 4 marzo alle 9:30',
                },
              ],
            },
          ],
          lead: null,
        },
        transfer: { possible: true, number: '+390212345678' },
      },
    ],
  },
);
export type VoiceContext = Static<typeof VoiceContextSchema>;

const HANDOFF_REASONS = ['emergency', 'patient_request', 'billing', 'clinical_question', 'not_understood', 'other'] as const;

export const NewHandoffSchema = Type.Object(
  {
    callId: Type.String({ minLength: 1, maxLength: 255, description: 'The call id at the voice provider: one handoff per call (a retry answers the same)' }),
    reason: StringEnum(HANDOFF_REASONS),
    summary: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'What the caller wanted, for the person who takes over' })),
    patientId: Type.Optional(Uuid()),
    leadId: Type.Optional(Uuid()),
    facilityId: Type.Optional(Uuid({ description: 'The facility called; default the patient’s or lead’s, else the main one the key sees' })),
  },
  { additionalProperties: false },
);
export type NewHandoff = Static<typeof NewHandoffSchema>;

export const HandoffSchema = Type.Object(
  {
    id: Uuid(),
    callId: Type.String(),
    reason: StringEnum(HANDOFF_REASONS),
    outcome: StringEnum(['transfer', 'callback'] as const, {
      description: '`transfer`: put the caller through to `transferTo` now; `callback`: a person will call back (`taskId`)',
    }),
    transferTo: Nullable(Type.String({ description: 'E.164 number to transfer the call to' })),
    taskId: Nullable(Uuid({ description: 'The callback task (event `task.created`)' })),
    patientId: Nullable(Uuid()),
    leadId: Nullable(Uuid()),
    facilityId: Nullable(Uuid()),
    createdAt: OutputTimestamp(),
  },
  {
    additionalProperties: false,
    title: 'VoiceHandoff',
    examples: [
      {
        id: '1e2d3c4b-5a69-4788-9a0b-1c2d3e4f5a6b',
        callId: 'CA1f2e3d4c5b6a',
        reason: 'billing',
        outcome: 'callback',
        transferTo: null,
        taskId: '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d',
        patientId: '6f5e4d3c-2b1a-4098-8f7e-6d5c4b3a2918',
        leadId: null,
        facilityId: '0f4a3b2c-1d0e-4f9a-8b7c-6d5e4f3a2b1c',
        createdAt: '2026-03-01T19:30:00.000Z',
      },
    ],
  },
);
export type HandoffView = Static<typeof HandoffSchema>;

/**
 * Doctors on the wire: as /v1 lists them (with the calendars they work in) and as the back
 * office creates, changes and answers them. The services' types are derived from these schemas.
 */
import { Type, type Static } from 'typebox';
import { Nullable, OutputTimestamp, PersonNameFields, PersonSchema, UpdatedListQueryFields, Uuid } from '../../core/schemas.js';

export const DoctorSchema = Type.Object(
  {
    id: Uuid(),
    firstName: Type.String(),
    lastName: Type.String(),
    displayName: Type.String({ description: 'How the clinic names the doctor to patients (default “Dott. <first> <last>”)' }),
    specialty: Nullable(Type.String()),
    facilityId: Nullable(Uuid()),
    calendarIds: Type.Array(Uuid(), { description: 'The calendars the doctor works in (that the key sees)' }),
    active: Type.Boolean(),
    updatedAt: OutputTimestamp(),
  },
  {
    additionalProperties: false,
    title: 'Doctor',
    examples: [
      {
        id: '2c9e8f7a-6b5d-4c3e-8f1a-9b0c7d6e5f4a',
        firstName: 'Laura',
        lastName: 'Bianchi',
        displayName: 'Dott.ssa Laura Bianchi',
        specialty: 'Igiene dentale',
        facilityId: '0f4a3b2c-1d0e-4f9a-8b7c-6d5e4f3a2b1c',
        calendarIds: ['5b0c2f1e-8a7d-4c3b-9e2f-1a0b9c8d7e6f'],
        active: true,
        updatedAt: '2026-02-01T09:00:00.000Z',
      },
    ],
  },
);
export type DoctorView = Static<typeof DoctorSchema>;

export const DoctorListQuerySchema = Type.Object(
  {
    ...UpdatedListQueryFields,
    facilityId: Type.Optional(Uuid({ description: 'Only doctors of this facility' })),
    calendarId: Type.Optional(Uuid({ description: 'Only doctors who work in this calendar' })),
  },
  { additionalProperties: false },
);
export type DoctorListQuery = Static<typeof DoctorListQuerySchema>;

const ShortText = (max: number) => Nullable(Type.String({ maxLength: max }));

/** A doctor as the back office changes it. */
export const DoctorAdminSchema = Type.Object(
  {
    ...PersonSchema.properties,
    displayName: Type.String({ description: 'How the clinic names the doctor to patients and agents (default “Dott. <first> <last>”)' }),
    specialty: Nullable(Type.String()),
    active: Type.Boolean(),
    updatedAt: OutputTimestamp(),
  },
  { additionalProperties: false },
);
export type DoctorAdminView = Static<typeof DoctorAdminSchema>;

export const NewDoctorSchema = Type.Object(
  {
    ...PersonNameFields,
    facilityId: Type.Optional(Nullable(Uuid())),
    specialty: Type.Optional(ShortText(100)),
    displayName: Type.Optional(ShortText(150)),
  },
  { additionalProperties: false },
);
export type NewDoctor = Static<typeof NewDoctorSchema>;

export const DoctorChangesSchema = Type.Object(
  {
    firstName: Type.Optional(PersonNameFields.firstName),
    lastName: Type.Optional(PersonNameFields.lastName),
    facilityId: Type.Optional(Nullable(Uuid())),
    specialty: Type.Optional(ShortText(100)),
    displayName: Type.Optional(ShortText(150)),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type DoctorChanges = Static<typeof DoctorChangesSchema>;

/** The Clinic area of /v1 (issue 15): doctors, chairs, staff profiles; list queries. */
import { Type, type Static } from 'typebox';
import { InputTimestamp, Nullable, OutputTimestamp, Uuid, PageQueryFields } from '../../core/schemas.js';

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

export const ChairSchema = Type.Object(
  { id: Uuid(), name: Type.String(), facilityId: Uuid(), active: Type.Boolean(), updatedAt: OutputTimestamp() },
  {
    additionalProperties: false,
    title: 'Chair',
    examples: [
      {
        id: '8e7d6c5b-4a3f-4e2d-9c1b-0a9f8e7d6c5b',
        name: 'Poltrona 1',
        facilityId: '0f4a3b2c-1d0e-4f9a-8b7c-6d5e4f3a2b1c',
        active: true,
        updatedAt: '2026-02-01T09:00:00.000Z',
      },
    ],
  },
);
export type ChairView = Static<typeof ChairSchema>;

export const StaffProfileSchema = Type.Object(
  {
    id: Uuid(),
    firstName: Type.String(),
    lastName: Type.String(),
    role: Type.String({ description: 'The clinic’s own word for the job (e.g. `staff`, `reception`, `manager`)' }),
    facilityId: Nullable(Uuid()),
    active: Type.Boolean(),
    updatedAt: OutputTimestamp(),
  },
  {
    additionalProperties: false,
    title: 'StaffProfile',
    examples: [
      {
        id: '4d3c2b1a-0f9e-4d8c-b7a6-5f4e3d2c1b0a',
        firstName: 'Marco',
        lastName: 'Verdi',
        role: 'reception',
        facilityId: null,
        active: true,
        updatedAt: '2026-02-01T09:00:00.000Z',
      },
    ],
  },
);
export type StaffProfileView = Static<typeof StaffProfileSchema>;

/** Every Clinic list: a page by last modification (oldest first, then id), `updatedSince`. */
export const listQueryFields = {
  ...PageQueryFields,
  updatedSince: Type.Optional(InputTimestamp({ description: 'Only rows modified at or after this instant' })),
};
export const ListQuerySchema = Type.Object(listQueryFields, { additionalProperties: false });
export const DoctorListQuerySchema = Type.Object(
  {
    ...listQueryFields,
    facilityId: Type.Optional(Uuid({ description: 'Only doctors of this facility' })),
    calendarId: Type.Optional(Uuid({ description: 'Only doctors who work in this calendar' })),
  },
  { additionalProperties: false },
);
export const CalendarListQuerySchema = Type.Object(
  {
    ...listQueryFields,
    facilityId: Type.Optional(Uuid({ description: 'Only calendars of this facility' })),
    doctorId: Type.Optional(Uuid({ description: 'Only calendars this doctor works in' })),
  },
  { additionalProperties: false },
);
export type ListQuery = Static<typeof ListQuerySchema>;
export type DoctorListQuery = Static<typeof DoctorListQuerySchema>;
export type CalendarListQuery = Static<typeof CalendarListQuerySchema>;

/** Staff profiles (task assignees, lead owners) on the wire: as /v1 lists them and as the back office creates and lists them. */
import { Type, type Static } from 'typebox';
import { Email, Nullable, OutputTimestamp, PersonNameFields, PersonSchema, Uuid } from '../../core/schemas.js';

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

/** A staff profile as the back office answers its creation and lists it. */
export const StaffSchema = Type.Object({ ...PersonSchema.properties, email: Nullable(Type.String()), role: Type.String() }, { additionalProperties: false });
export const NewStaffSchema = Type.Object(
  {
    ...PersonNameFields,
    facilityId: Type.Optional(Nullable(Uuid())),
    email: Type.Optional(Nullable(Email(200))),
    role: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  },
  { additionalProperties: false },
);
export type NewStaff = Static<typeof NewStaffSchema>;

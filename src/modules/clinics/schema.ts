/**
 * Tenants on the wire (back office): organizations, clinics and a clinic's doctors, chairs and
 * staff profiles, with the bodies that create and change them. The services' input and output
 * types are derived from these schemas, so a field is declared once.
 */
import { Type, type Static } from 'typebox';
import { Email, Nullable, OutputTimestamp, StringEnum, Uuid } from '../../core/schemas.js';

const Name = Type.String({ minLength: 1, maxLength: 200 });
const ShortText = (max: number) => Nullable(Type.String({ maxLength: max }));
const Timezone = Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone (`Europe/Rome`)' });

export const OrganizationSchema = Type.Object(
  { id: Uuid(), name: Type.String(), suspended: Type.Boolean(), suspendedAt: Nullable(OutputTimestamp()), createdAt: OutputTimestamp() },
  { additionalProperties: false },
);
export type OrganizationView = Static<typeof OrganizationSchema>;

export const NewOrganizationSchema = Type.Object({ name: Name }, { additionalProperties: false });
export const OrganizationChangesSchema = Type.Object({ suspended: Type.Boolean() }, { additionalProperties: false });

export const ClinicSchema = Type.Object(
  {
    id: Uuid(),
    organizationId: Uuid(),
    name: Type.String(),
    mode: StringEnum(['live', 'test']),
    planActive: Type.Boolean({ description: 'The Clinic plan is active (otherwise 403 plan_required)' }),
    patientLimit: Nullable(Type.Integer()),
    aiEnabled: Type.Boolean(),
    timezone: Type.String(),
    quotesRequireSignature: Type.Boolean({
      description: 'Accepting a quote needs a signed document (`signedDocumentId`), else `403 forbidden`, reason `signature_required`',
    }),
    suspended: Type.Boolean({ description: 'The organization is suspended (403 organization_suspended)' }),
    createdAt: OutputTimestamp(),
    updatedAt: OutputTimestamp(),
  },
  { additionalProperties: false },
);
export type ClinicView = Static<typeof ClinicSchema>;

export const NewClinicSchema = Type.Object(
  {
    name: Name,
    organizationId: Type.Optional(Uuid()),
    mode: Type.Optional(StringEnum(['live', 'test'])),
    planActive: Type.Optional(Type.Boolean()),
    patientLimit: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
    aiEnabled: Type.Optional(Type.Boolean()),
    timezone: Type.Optional(Timezone),
  },
  { additionalProperties: false },
);
export type NewClinic = Static<typeof NewClinicSchema>;

export const ClinicChangesSchema = Type.Object(
  {
    name: Type.Optional(Name),
    planActive: Type.Optional(Type.Boolean()),
    patientLimit: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
    aiEnabled: Type.Optional(Type.Boolean()),
    timezone: Type.Optional(Timezone),
    quotesRequireSignature: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type ClinicChanges = Static<typeof ClinicChangesSchema>;

const PersonNames = {
  firstName: Type.String({ minLength: 1, maxLength: 100 }),
  lastName: Type.String({ minLength: 1, maxLength: 100 }),
};

export const PersonSchema = Type.Object(
  { id: Uuid(), facilityId: Nullable(Uuid()), firstName: Type.String(), lastName: Type.String() },
  { additionalProperties: false },
);

export const DoctorSchema = Type.Object(
  {
    ...PersonSchema.properties,
    displayName: Type.String({ description: 'How the clinic names the doctor to patients and agents (default “Dott. <first> <last>”)' }),
    specialty: Nullable(Type.String()),
    active: Type.Boolean(),
    updatedAt: OutputTimestamp(),
  },
  { additionalProperties: false },
);
export type DoctorAdminView = Static<typeof DoctorSchema>;

export const NewDoctorSchema = Type.Object(
  {
    ...PersonNames,
    facilityId: Type.Optional(Nullable(Uuid())),
    specialty: Type.Optional(ShortText(100)),
    displayName: Type.Optional(ShortText(150)),
  },
  { additionalProperties: false },
);
export type NewDoctor = Static<typeof NewDoctorSchema>;

export const DoctorChangesSchema = Type.Object(
  {
    firstName: Type.Optional(PersonNames.firstName),
    lastName: Type.Optional(PersonNames.lastName),
    facilityId: Type.Optional(Nullable(Uuid())),
    specialty: Type.Optional(ShortText(100)),
    displayName: Type.Optional(ShortText(150)),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type DoctorChanges = Static<typeof DoctorChangesSchema>;

export const ChairSchema = Type.Object({ id: Uuid(), facilityId: Uuid(), name: Type.String() }, { additionalProperties: false });
export const NewChairSchema = Type.Object({ name: Name, facilityId: Uuid() }, { additionalProperties: false });
export type NewChair = Static<typeof NewChairSchema>;

export const StaffSchema = Type.Object({ ...PersonSchema.properties, email: Nullable(Type.String()), role: Type.String() }, { additionalProperties: false });
export const NewStaffSchema = Type.Object(
  {
    ...PersonNames,
    facilityId: Type.Optional(Nullable(Uuid())),
    email: Type.Optional(Nullable(Email(200))),
    role: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  },
  { additionalProperties: false },
);
export type NewStaff = Static<typeof NewStaffSchema>;

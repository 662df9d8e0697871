/**
 * Tenants on the wire (back office): organizations and clinics, with the bodies that create
 * and change them (a clinic's facilities, doctors, chairs and staff profiles are in the modules
 * of their names). The services' types are derived from these schemas: a field is declared once.
 */
import { Type, type Static } from 'typebox';
import { Nullable, OutputTimestamp, StringEnum, Uuid } from '../../core/schemas.js';

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Timezone = Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone (`Europe/Rome`); a zone the service does not know is `400`' });

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
    retellSecretSet: Type.Boolean({
      description:
        'A Retell key is set: the Retell runner (`POST /v1/agent-tools/retell`) refuses a request without its valid `X-Retell-Signature`. The key itself is never shown',
    }),
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
    retellSecret: Type.Optional(
      Nullable(
        Type.String({
          minLength: 8,
          maxLength: 200,
          pattern: '^[\\x21-\\x7e]+$',
          description:
            'The Retell API key with the webhook badge, which signs the clinic’s Retell custom-function requests (`X-Retell-Signature`); `null` stops the check. Write-only: the clinic shows `retellSecretSet`',
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
export type ClinicChanges = Static<typeof ClinicChangesSchema>;

/**
 * Leads on the wire (spec 2.5, 4.4): the schemas /v1 and the back office validate and serialize
 * with, and the service's types derived from them by `Static<>`.
 */
import { Type, type Static } from 'typebox';
import { Email, InputTimestamp, Nullable, OutputTimestamp, StringEnum, Uuid } from '../../core/schemas.js';
import { PHONE_PATTERN } from '../../lib/phone.js';

const LEAD_SOURCES = ['social_media', 'website', 'referral_link', 'manual', 'import', 'phone', 'walk_in', 'other', 'chat'] as const;
const LEAD_STATUSES = ['new', 'contacted', 'qualified', 'proposal', 'won', 'lost'] as const;
/** Kinds of lead activities: `call` (spec) and ours. */
const ACTIVITY_KINDS = ['call', 'note', 'email', 'message', 'meeting', 'status_change'] as const;

export const LeadInputSchema = Type.Object(
  {
    firstName: Type.String({ minLength: 1, maxLength: 100 }),
    lastName: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    email: Type.Optional(Nullable(Email(254))),
    phone: Type.Optional(
      Nullable(Type.String({ minLength: 3, maxLength: 40, pattern: PHONE_PATTERN, description: 'Any format; stored and returned in E.164' })),
    ),
    source: Type.Optional(Nullable(StringEnum(LEAD_SOURCES))),
    sourceDetail: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    status: Type.Optional(StringEnum(LEAD_STATUSES, { description: 'Default `new`' })),
    notes: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
    assignedTo: Type.Optional(Nullable(Uuid({ description: 'A staff profile of the clinic' }))),
    estimatedValue: Type.Optional(
      Nullable(Type.Number({ minimum: 0, maximum: 100000000, description: '0 to 100000000 inclusive, in euro (our choice of unit)' })),
    ),
    nextFollowUpAt: Type.Optional(Nullable(InputTimestamp())),
    facilityId: Type.Optional(Nullable(Uuid({ description: 'Required when the key is limited to facilities; must be one the key sees' }))),
  },
  { additionalProperties: false, title: 'LeadInput' },
);

export const ActivitySchema = Type.Object(
  {
    id: Uuid(),
    kind: Type.String({ description: '`call`, `note`, `email`, `message`, `meeting` or `status_change`' }),
    body: Type.String(),
    at: OutputTimestamp(),
  },
  { additionalProperties: false },
);

const leadFields = {
  id: Uuid(),
  facilityId: Nullable(Uuid()),
  firstName: Type.String(),
  lastName: Nullable(Type.String()),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String({ description: 'E.164' })),
  source: Nullable(StringEnum(LEAD_SOURCES)),
  sourceDetail: Nullable(Type.String()),
  status: StringEnum(LEAD_STATUSES),
  assignedTo: Nullable(Uuid()),
  estimatedValue: Nullable(Type.Number()),
  notes: Nullable(Type.String()),
  nextFollowUpAt: Nullable(OutputTimestamp()),
  lastContactedAt: Nullable(OutputTimestamp()),
  lostReason: Nullable(Type.String()),
  convertedPatientId: Nullable(Uuid()),
  convertedAt: Nullable(OutputTimestamp()),
  createdAt: OutputTimestamp(),
  updatedAt: OutputTimestamp(),
  deduplicated: Type.Boolean({ description: 'true = it already existed: nothing created, nothing modified' }),
};

export const LeadSchema = Type.Object(leadFields, { additionalProperties: false, title: 'Lead' });
export const LeadDetailSchema = Type.Object(
  { ...leadFields, activities: Type.Array(ActivitySchema, { description: 'Oldest first' }) },
  { additionalProperties: false, title: 'LeadDetail' },
);

export type LeadInput = Static<typeof LeadInputSchema>;
export type ActivityView = Static<typeof ActivitySchema>;
/** A lead; `activities` only where the detail is asked for. */
export type LeadView = Static<typeof LeadSchema> & { activities?: ActivityView[] };

/** Back office: the change of a lead (only the fields sent change). */
export const LeadChangesSchema = Type.Object(
  {
    status: Type.Optional(StringEnum(LEAD_STATUSES)),
    lostReason: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    assignedTo: Type.Optional(Nullable(Uuid())),
    nextFollowUpAt: Type.Optional(Nullable(InputTimestamp())),
    notes: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
    estimatedValue: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 100000000 }))),
  },
  { additionalProperties: false },
);
export type LeadChanges = Static<typeof LeadChangesSchema>;

/** Back office: an activity added to a lead. */
export const NewActivitySchema = Type.Object(
  {
    kind: StringEnum(ACTIVITY_KINDS),
    body: Type.String({ minLength: 1, maxLength: 5000 }),
    at: Type.Optional(InputTimestamp()),
  },
  { additionalProperties: false },
);
export type NewActivity = Static<typeof NewActivitySchema>;

/** Back office: a lead converted into a patient, new or existing (`patientId`). */
export const LeadConversionSchema = Type.Object(
  {
    patientId: Type.Optional(Uuid()),
    firstName: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    lastName: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type LeadConversion = Static<typeof LeadConversionSchema>;
export const LeadConvertedSchema = Type.Object({ lead: LeadSchema, patientCreated: Type.Boolean() }, { additionalProperties: false });

/**
 * Patients on the wire (spec 2.3, 4.2, 4.11): the schemas /v1 and the back office validate and
 * serialize with, and the service's types derived from them by `Static<>`.
 */
import { Type, type Static } from 'typebox';
import { DateOnly, Email, Nullable, OutputTimestamp, StringEnum, Uuid } from '../../core/schemas.js';
import { PHONE_PATTERN } from '../../lib/phone.js';

const GENDERS = ['male', 'female', 'other', 'prefer_not_to_say'] as const;
const REFERRAL_SOURCES = ['walk_in', 'internet', 'social', 'companies', 'referral'] as const;
export const CLINICAL_FIELDS = ['allergies', 'medications', 'conditions', 'notes'] as const;

const ClinicalList = () =>
  Type.Optional(
    Nullable(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        maxItems: 100,
        description: 'At most 100 items of 1-200 characters; requires `clinical:write`',
      }),
    ),
  );

const AddressInput = Type.Object(
  {
    street: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    city: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    zip: Type.Optional(Nullable(Type.String({ maxLength: 20 }))),
    country: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
  },
  { additionalProperties: false, description: 'Our bounds (the spec shows none): street 200, city 100, zip 20, country 100 characters' },
);

export const patientFields = {
  firstName: Type.String({ minLength: 1, maxLength: 100 }),
  lastName: Type.String({ minLength: 1, maxLength: 100 }),
  email: Type.Optional(Nullable(Email(200))),
  phone: Type.Optional(Nullable(Type.String({ minLength: 3, maxLength: 30, pattern: PHONE_PATTERN, description: 'Any format; stored and returned in E.164' }))),
  dateOfBirth: Type.Optional(Nullable(DateOnly())),
  gender: Type.Optional(Nullable(StringEnum(GENDERS))),
  taxCode: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 32 }))),
  address: Type.Optional(Nullable(AddressInput)),
  facilityId: Type.Optional(Nullable(Uuid({ description: 'Required when the key is limited to facilities; must be one the key sees' }))),
  referralSource: Type.Optional(Nullable(StringEnum(REFERRAL_SOURCES))),
  allergies: ClinicalList(),
  medications: ClinicalList(),
  conditions: ClinicalList(),
  notes: Type.Optional(Nullable(Type.String({ maxLength: 5000, description: 'Requires `clinical:write`' }))),
};

export const PatientInputSchema = Type.Object(patientFields, { additionalProperties: false, title: 'PatientInput' });

const AddressOutput = Type.Object(
  { street: Nullable(Type.String()), city: Nullable(Type.String()), zip: Nullable(Type.String()), country: Nullable(Type.String()) },
  { additionalProperties: false },
);

export const PatientSchema = Type.Object(
  {
    id: Uuid(),
    firstName: Nullable(Type.String({ description: 'null only once the patient is erased' })),
    lastName: Nullable(Type.String({ description: 'null only once the patient is erased' })),
    email: Nullable(Type.String()),
    phone: Nullable(Type.String({ description: 'E.164, starting with `+`' })),
    dateOfBirth: Nullable(Type.String({ format: 'date' })),
    gender: Nullable(StringEnum(GENDERS)),
    taxCode: Nullable(Type.String()),
    address: Nullable(AddressOutput),
    facilityId: Nullable(Uuid()),
    referralSource: Nullable(StringEnum(REFERRAL_SOURCES)),
    isActive: Type.Boolean({ description: 'false = archived (or erased)' }),
    archivedAt: Nullable(OutputTimestamp()),
    createdAt: OutputTimestamp(),
    updatedAt: OutputTimestamp(),
    allergies: Type.Optional(Nullable(Type.Array(Type.String()))),
    medications: Type.Optional(Nullable(Type.Array(Type.String()))),
    conditions: Type.Optional(Nullable(Type.Array(Type.String()))),
    notes: Type.Optional(Nullable(Type.String())),
  },
  {
    additionalProperties: false,
    title: 'Patient',
    description: '`allergies`, `medications`, `conditions` and `notes` are present only for a key with `clinical:read`.',
  },
);

/** How a hit was found by `q`. */
const MATCHED_BY = ['name', 'nickname', 'phone', 'taxCode', 'email'] as const;
/** The second details a caller can say, which confirm who they are (closed list). */
export const CONFIRMING_DETAILS = ['birthDate', 'birthYear', 'phoneLast', 'taxCode'] as const;
export type ConfirmingDetail = (typeof CONFIRMING_DETAILS)[number];

export const SearchHitSchema = Type.Object(
  {
    id: Uuid(),
    name: Type.String({ description: 'First and last name' }),
    birthYear: Nullable(Type.Integer({ description: 'null when the date of birth is unknown' })),
    phoneLast4: Nullable(Type.String({ pattern: '^[0-9]{4}$', description: 'Last four digits of the phone; null when there is no phone', examples: ['4567'] })),
    archived: Type.Boolean(),
    score: Type.Number({ minimum: 0, maximum: 1, description: 'Match score: 1 = exact' }),
    matchedBy: StringEnum(MATCHED_BY, {
      description: '`nickname`: the query said a common short form of the registered first name ("Pino" for Giuseppe), scored below the registered name',
    }),
    confirmedBy: Type.Array(StringEnum(CONFIRMING_DETAILS), {
      description:
        'The second details sent (`birthDate`, `birthYear`, `phoneLast`, `taxCode`) that this patient matches; empty when none was sent or none matches',
    }),
    lastVisitAt: Nullable(
      OutputTimestamp({ description: 'Start of the latest past appointment that took place (not cancelled, no_show, draft or postponed); null if none' }),
    ),
  },
  { additionalProperties: false, title: 'PatientSearchHit' },
);

/** Back office: the change of a patient (only the fields sent change; null clears an optional one). */
const { firstName, lastName, ...optionalFields } = patientFields;
export const PatientChangesSchema = Type.Object(
  { firstName: Type.Optional(firstName), lastName: Type.Optional(lastName), ...optionalFields },
  { additionalProperties: false },
);

/** Back office: an import of patients, created all or none. */
export const IMPORT_MAX = 1000;
export const PatientImportSchema = Type.Object(
  { patients: Type.Array(PatientInputSchema, { minItems: 1, maxItems: IMPORT_MAX }) },
  { additionalProperties: false },
);
export const PatientImportResultSchema = Type.Object(
  {
    created: Type.Integer(),
    ids: Type.Array(Uuid()),
    eventsSkipped: Type.Boolean({ description: 'true: one events.skipped was recorded instead of patient.created events' }),
  },
  { additionalProperties: false },
);

export const PatientSearchQuerySchema = Type.Object(
  {
    q: Type.String({
      minLength: 2,
      maxLength: 100,
      description:
        'Text to search: a name, a phone, a tax code or an email (2-100 characters). A tax code that is exactly one patient’s counts as the `taxCode` detail; a full phone or email is not a confirmation alone (families share them) but counts as the other detail beside a `birthYear`',
    }),
    facilityId: Type.Optional(Uuid({ description: 'Only patients of this facility' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 10, description: 'Hits to return, 1-20 (default 10)' })),
    birthDate: Type.Optional(
      DateOnly({ description: 'Second detail: the date of birth the caller says (YYYY-MM-DD). Confirms alone', examples: ['1980-01-01'] }),
    ),
    birthYear: Type.Optional(
      Type.Integer({
        minimum: 1900,
        maximum: 2099,
        description:
          'Second detail: the year of birth the caller says. Weak: confirms alone only when `q` is the patient’s own registered name (not a nickname, not a near name); otherwise it narrows the patients, or confirms together with another detail',
        examples: [1980],
      }),
    ),
    phoneLast: Type.Optional(
      Type.String({
        pattern: '^[0-9]{4,15}$',
        description: 'Second detail: the last digits (4-15) of the phone the caller says. Confirms alone',
        examples: ['2233'],
      }),
    ),
    taxCode: Type.Optional(
      Type.String({
        minLength: 11,
        maxLength: 20,
        pattern: '^[A-Za-z0-9 ]+$',
        description: 'Second detail: the tax code the caller says, any letter case and spaces. Confirms alone',
        examples: ['RSSMRA80A01F205X'],
      }),
    ),
  },
  { additionalProperties: false },
);
export const PatientSearchResultSchema = Type.Object(
  {
    data: Type.Array(SearchHitSchema, {
      description:
        'For an agent key (voice agent, chat bot): only the confirmed patient, and empty when `confirmed` is false. For other keys: the hits, best first',
    }),
    closeMatches: Type.Integer({ minimum: 0 }),
    confirmed: Type.Boolean({
      description:
        'true only when exactly one patient the query finds (on any page) matches every detail sent, and those details are strong enough: `birthDate`, `phoneLast` or `taxCode` (also a `q` that is a tax code) confirm alone; `birthYear` only with the patient’s own registered name as `q`, or with another detail (a `q` that is their full phone or email counts). That patient is then `data[0]`. A name alone never confirms.',
    }),
    confirmedBy: Type.Array(StringEnum(CONFIRMING_DETAILS), { description: 'The details that confirmed `data[0]`; empty when `confirmed` is false' }),
    candidates: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'Agent keys only: how many patients the query found (before the details sent; each name search reads at most 200). 0: nobody has a name like this; the caller is a new contact',
      }),
    ),
    askFor: Type.Optional(
      Type.Array(StringEnum(CONFIRMING_DETAILS), {
        description:
          'Agent keys only: the details to ask the caller for next, those that confirm alone and were not sent; empty when `confirmed` is true or when nothing was found (then treat the caller as a new contact)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const PatientLookupQuerySchema = Type.Object(
  { phone: Type.String({ minLength: 3, maxLength: 30, description: 'Phone in any format' }) },
  { additionalProperties: false },
);
export const PatientLookupSchema = Type.Object(
  {
    found: Type.Boolean(),
    patient: Nullable(Type.Object({ id: Uuid(), name: Type.String() }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

export type PatientInput = Static<typeof PatientInputSchema>;
export type PatientUpdate = Static<typeof PatientChangesSchema>;
/** The search's parameters, `limit` defaulted. */
export type PatientSearchQuery = Static<typeof PatientSearchQuerySchema> & { limit: number };
export type PatientLookup = Static<typeof PatientLookupSchema>;
export type AddressInput = NonNullable<PatientInput['address']>;
export type PatientView = Static<typeof PatientSchema>;
export type SearchHit = Static<typeof SearchHitSchema>;
export type PatientSearchResult = Static<typeof PatientSearchResultSchema>;

/** /v1/patients (spec 2.3, 2.4, 4.2, 4.3, 4.11). */
import { Type } from 'typebox';
import { PATIENT_REASONS } from '../../../modules/patients/reasons.js';
import type { AppContext } from '../../../context.js';
import { hasScope } from '../../../modules/auth/authenticate.js';
import { searchPatients } from '../../../modules/patients/search.js';
import { CLINICAL_FIELDS, createPatient, getPatient, GENDERS, lookupPatient, REFERRAL_SOURCES, type Caller } from '../../../modules/patients/service.js';
import type { AuthContext } from '../../../core/actor.js';
import { setEtag } from '../../etag.js';
import { DateOnly, Email, IdempotencyKeyHeader, IdParams, Nullable, OutputTimestamp, StringEnum, Uuid } from '../../../core/schemas.js';
import type { App } from '../../types.js';

const TAG = 'Patients';

/** Phones: digits and the usual separators; the number itself is checked by libphonenumber. */
export const PHONE_PATTERN = '^[+0-9 ()./-]*$';

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

const SearchHitSchema = Type.Object(
  {
    id: Uuid(),
    name: Type.String({ description: 'First and last name' }),
    birthYear: Nullable(Type.Integer({ description: 'null when the date of birth is unknown' })),
    phoneLast4: Nullable(Type.String({ description: 'Last four digits of the phone; null when there is no phone' })),
    archived: Type.Boolean(),
    score: Type.Number({ minimum: 0, maximum: 1, description: 'Match score: 1 = exact' }),
    matchedBy: StringEnum(['name', 'phone', 'taxCode', 'email'] as const),
    lastVisitAt: Nullable(
      OutputTimestamp({ description: 'Start of the latest past appointment that took place (not cancelled, no_show, draft or postponed); null if none' }),
    ),
  },
  { additionalProperties: false, title: 'PatientSearchHit' },
);

export function callerOf(auth: AuthContext, ctx: AppContext): Caller {
  return {
    scope: auth,
    clinicalWrite: hasScope(auth, 'clinical:write'),
    clinicalRead: hasScope(auth, 'clinical:read'),
    region: ctx.config.defaultPhoneRegion,
  };
}

export function registerPatientRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/v1/patients',
    {
      schema: {
        operationId: 'createPatient',
        tags: [TAG],
        summary: 'Create a patient',
        description: [
          'Creates a patient and answers `201` with it and its `ETag`; records `patient.created`.',
          'Required: `firstName` and `lastName` (our choice; the spec lists none). `phone` is accepted in any format (without a country prefix it is read as Italian) and stored in E.164; a string that is not a possible phone number is `400`.',
          '`allergies`, `medications`, `conditions` and `notes` need `clinical:write` (else `403 insufficient_scope`, `requiredScopes: ["clinical:write"]`) and are returned only with `clinical:read`.',
          '`facilityId` is required for a key limited to facilities and must be a facility of the clinic the key sees (else `400` naming `facilityId`).',
          'Conflicts: `409 conflict` reason `duplicate_patient` with `details.patientId` when a patient (not erased) has the same first and last name, compared without case, accents, punctuation or extra spaces, and the same E.164 phone or the same email without case. The rule holds across the whole clinic; a key limited to facilities that cannot see that patient gets `details.patientId: null` (it learns that the person is already a patient of the clinic, never who or where); reason `concurrent_request` when another request is creating a person with the same phone or email at this very moment (retry: it will then be `duplicate_patient` or succeed).',
          '`403 forbidden` reason `plan_limit` when the clinic already has as many active (not archived) patients as its plan allows.',
          'With `Idempotency-Key` a retry replays the first response and creates nothing.',
        ].join('\n\n'),
        headers: Type.Object({ 'idempotency-key': Type.Optional(IdempotencyKeyHeader) }),
        body: PatientInputSchema,
        response: { 201: PatientSchema },
      },
      config: { reasons: PATIENT_REASONS.create, scopes: ['patients:write'], idempotent: true, errorStatuses: [403, 409] },
    },
    async (request, reply) => {
      const { view, version } = await createPatient(ctx.db, callerOf(request.auth, ctx), request.body);
      setEtag(reply, version);
      return reply.status(201).send(view);
    },
  );

  app.get(
    '/v1/patients/search',
    {
      schema: {
        operationId: 'searchPatients',
        tags: [TAG],
        summary: 'Search patients by name, phone, tax code or email',
        description: [
          'Finds a person even when misspelled: typos, transposed letters, missing or extra accents, first and last name swapped, part of a name; or by a phone in any format, a tax code in any letter case, an email in any case.',
          'A year 1900-2099 among the words of a name (`Rossi 1975`) keeps only the patients born that year. A name of more than 8 words, or a query with no letter that is not a phone, finds nobody (`data: []`).',
          'Ranked by `score` (1 = exact; phone, tax code and email match exactly), then active before archived. Archived patients are included with `archived: true`; erased ones never.',
          '`matchedBy` is `name`, `phone`, `taxCode` or `email`. `closeMatches` counts every candidate (also beyond `limit`) whose score equals the best one, to 3 decimals: more than 1 means the query cannot tell them apart.',
          'A `facilityId` the key does not see or that does not exist is `400`.',
        ].join('\n\n'),
        querystring: Type.Object(
          {
            q: Type.String({ minLength: 2, maxLength: 100, description: 'Text to search: a name, a phone, a tax code or an email (2-100 characters)' }),
            facilityId: Type.Optional(Uuid({ description: 'Only patients of this facility' })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 10, description: 'Hits to return, 1-20 (default 10)' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ data: Type.Array(SearchHitSchema), closeMatches: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }) },
      },
      config: { scopes: ['patients:read'] },
    },
    async (request) => searchPatients(ctx.db, request.auth, ctx.config.defaultPhoneRegion, { ...request.query, limit: request.query.limit ?? 10 }),
  );

  app.get(
    '/v1/patients/lookup',
    {
      schema: {
        operationId: 'lookupPatient',
        tags: [TAG],
        summary: 'Find the patient with a phone number',
        description:
          'By a phone in any format. Answers `200` with `{ found: true, patient: { id, name } }`, or `{ found: false, patient: null }` when no patient the key sees has that number (erased patients never match). When several patients share the number, an active one is preferred, then the most recently updated. A string that is not a phone number is `400`.',
        querystring: Type.Object({ phone: Type.String({ minLength: 3, maxLength: 30, description: 'Phone in any format' }) }, { additionalProperties: false }),
        response: {
          200: Type.Object(
            {
              found: Type.Boolean(),
              patient: Nullable(Type.Object({ id: Uuid(), name: Type.String() }, { additionalProperties: false })),
            },
            { additionalProperties: false },
          ),
        },
      },
      config: { scopes: ['patients:read'] },
    },
    async (request) => lookupPatient(ctx.db, request.auth, ctx.config.defaultPhoneRegion, request.query.phone),
  );

  app.get(
    '/v1/patients/:id',
    {
      schema: {
        operationId: 'getPatient',
        tags: [TAG],
        summary: 'Read a patient',
        description:
          'The patient with its `ETag`. Clinical fields (allergies, medications, conditions, notes) only with `clinical:read`, and then the read is written to the access log (clinical data). A patient of another clinic or of a facility the key does not see is `404`; an erased patient is returned with its personal fields null.',
        params: IdParams,
        response: { 200: PatientSchema },
      },
      config: { scopes: ['patients:read'] },
    },
    async (request, reply) => {
      const clinicalRead = hasScope(request.auth, 'clinical:read');
      const { view, version } = await getPatient(ctx.db, request.auth, request.params.id, clinicalRead);
      if (clinicalRead) {
        await ctx.accessLog.record(request.auth, { resourceType: 'patient', resourceIds: [view.id], fields: [...CLINICAL_FIELDS], requestId: request.id });
      }
      setEtag(reply, version);
      return view;
    },
  );
}

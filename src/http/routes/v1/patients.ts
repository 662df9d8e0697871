/** /v1/patients (spec 2.3, 2.4, 4.2, 4.3, 4.11). */
import {
  PATIENT_REASONS,
  searchPatients,
  createPatient,
  getPatient,
  lookupPatient,
  CLINICAL_FIELDS,
  PatientInputSchema,
  PatientLookupQuerySchema,
  PatientLookupSchema,
  PatientSchema,
  PatientSearchQuerySchema,
  PatientSearchResultSchema,
  lookupQueryIssues,
  patientBodyIssues,
} from '../../../modules/patients/index.js';
import type { AppContext } from '../../../context.js';
import { setEtag } from '../../etag.js';
import { IdempotencyHeaders, IdParams } from '../../../core/schemas.js';
import type { App } from '../../types.js';

const TAG = 'Patients';

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
        headers: IdempotencyHeaders,
        body: PatientInputSchema,
        response: { 201: PatientSchema },
      },
      config: {
        etag: true,
        reasons: PATIENT_REASONS.create,
        scopes: ['patients:write'],
        idempotent: true,
        errorStatuses: [403, 409],
        bodyIssues: patientBodyIssues,
      },
    },
    async (request, reply) => {
      const { view, version } = await createPatient(request.db, request.actor, request.body);
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
          '`matchedBy` is `name`, `nickname`, `phone`, `taxCode` or `email`. `closeMatches` counts every candidate (also beyond `limit`) whose score equals the best one, to 3 decimals: more than 1 means the query cannot tell them apart.',
          '**A name alone never identifies a patient.** People who are not patients get close hits with high scores, often one letter from a real patient, and no score separates them from a misspelled patient; `closeMatches: 1` only says that the best hit has no tie. Before acting on a patient (booking, reading or changing their data), confirm with a second detail the person says: `birthDate` (YYYY-MM-DD), `birthYear`, `phoneLast` (the last 4-15 digits of their phone) or `taxCode`. Each hit lists in `confirmedBy` the details sent that it matches, and the patients matching all of them come first. `confirmed` is true only when exactly one patient the query finds (on any page) matches every detail sent and they are strong enough: that patient is `data[0]`, and the answer’s `confirmedBy` lists the details. Several patients matching (two namesakes born the same year) or none is `confirmed: false`: ask the person for another detail. Never read the hits’ details to the caller to have them confirmed.',
          '**Which details confirm.** Alone: `birthDate`, `phoneLast`, `taxCode`, and a `q` that is a tax code (it counts as the `taxCode` detail). `birthYear` alone only when `q` is the patient’s own registered name (equal without case, accents, spaces or word order; a nickname or a near name is not their own); otherwise only together with another detail: one sent, or a `q` that is the patient’s full phone or email. A full phone or email alone never confirms (families share them).',
          '**Agent keys** (voice agents and chat bots, whatever calls this: MCP, the REST packs, the Vapi runner) get only a confirmed patient: when `confirmed` is false, `data` is empty, `candidates` says how many patients the query found and `askFor` which details to ask for next (empty when nothing was found: a new contact). When confirmed, `data` holds only that patient. Other keys get the hits with ids, without `candidates` and `askFor`.',
          'Callers say nicknames: a word that is a common Italian short form of a first name (Pino, Peppe for Giuseppe; Totò, Turi, Salvo for Salvatore; Checco for Francesco; Mimmo for Domenico; Rita for Margherita; Pina for Giuseppina; the full table is the patients module’s `nicknames.ts` in the repository) is also searched as the registered name, with `matchedBy: nickname` and 0.95 times the score (a further registered name of the same nickname a little lower), so a patient registered under the nickname itself comes first, and the nickname’s registered name before a name one letter from the nickname.',
          'A `facilityId` the key does not see or that does not exist is `400`.',
        ].join('\n\n'),
        querystring: PatientSearchQuerySchema,
        response: { 200: PatientSearchResultSchema },
      },
      config: { scopes: ['patients:read'] },
    },
    async (request) => ctx.reads.run(request.actor, (db) => searchPatients(db, request.actor, { ...request.query, limit: request.query.limit ?? 10 })),
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
        querystring: PatientLookupQuerySchema,
        response: { 200: PatientLookupSchema },
      },
      config: { scopes: ['patients:read'], queryIssues: lookupQueryIssues },
    },
    async (request) => ctx.reads.run(request.actor, (db) => lookupPatient(db, request.actor, request.query.phone)),
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
      config: { etag: true, scopes: ['patients:read'] },
    },
    async (request, reply) => {
      const { view, version } = await getPatient(ctx.db, request.actor, request.params.id);
      if (view.notes !== undefined) {
        await ctx.accessLog.record(request.actor, { resourceType: 'patient', resourceIds: [view.id], fields: [...CLINICAL_FIELDS], requestId: request.id });
      }
      setEtag(reply, version);
      return view;
    },
  );
}

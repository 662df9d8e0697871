/** Back office: the clinic's own operations on patients and leads. */
import {
  LEAD_REASONS,
  addActivity,
  convertLead,
  getLead,
  updateLead,
  ActivitySchema,
  LeadChangesSchema,
  LeadConversionSchema,
  LeadConvertedSchema,
  LeadDetailSchema,
  LeadSchema,
  NewActivitySchema,
} from '../../../modules/leads/index.js';
import {
  PATIENT_REASONS,
  getPatient,
  importPatients,
  archivePatient,
  erasePatient,
  updatePatient,
  IMPORT_MAX,
  PatientChangesSchema,
  PatientImportResultSchema,
  PatientImportSchema,
  PatientSchema,
  patientBodyIssues,
  patientImportIssues,
} from '../../../modules/patients/index.js';
import type { AppContext } from '../../../context.js';
import { depsOf } from '../../../modules/documents/index.js';
import { expectedVersion, setEtag } from '../../etag.js';
import { ClinicItemParams, ClinicParams, IfMatchHeaders } from '../../../core/schemas.js';
import type { App } from '../../types.js';

const TAG = 'People';

export function registerPeopleAdminRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;

  app.get(
    '/admin/v1/clinics/:clinicId/patients/:id',
    {
      config: { clinicActor: true },
      schema: {
        operationId: 'adminGetPatient',
        tags: [TAG],
        summary: 'Read a patient, clinical fields included',
        params: ClinicItemParams,
        response: { 200: PatientSchema },
      },
    },
    async (request, reply) => {
      const { view, version } = await getPatient(db, request.actor, request.params.id);
      setEtag(reply, version);
      return view;
    },
  );

  app.patch(
    '/admin/v1/clinics/:clinicId/patients/:id',
    {
      schema: {
        operationId: 'adminUpdatePatient',
        tags: [TAG],
        summary: 'Change a patient',
        description:
          'Only sent fields change; null clears an optional one. Records `patient.updated` with `data.changedFields` (the fields whose value really changed; none changed: no event, version unchanged). `If-Match` supported (`409 version_mismatch`). An erased patient is `409 patient_erased`.',
        params: ClinicItemParams,
        headers: IfMatchHeaders,
        body: PatientChangesSchema,
        response: { 200: PatientSchema },
      },
      config: { clinicActor: true, reasons: PATIENT_REASONS.update, errorStatuses: [409], bodyIssues: patientBodyIssues },
    },
    async (request, reply) => {
      const { view, version } = await updatePatient(db, request.actor, request.params.id, request.body, expectedVersion(request));
      setEtag(reply, version);
      return view;
    },
  );

  app.post(
    '/admin/v1/clinics/:clinicId/patients/:id/archive',
    {
      schema: {
        operationId: 'adminArchivePatient',
        tags: [TAG],
        summary: 'Archive a patient',
        description:
          '`isActive` becomes false and `archivedAt` is set; records `patient.archived` with `data.reason: archived`. Already archived: `409 already_archived`; erased: `409 patient_erased`.',
        params: ClinicItemParams,
        response: { 200: PatientSchema },
      },
      config: { clinicActor: true, reasons: PATIENT_REASONS.archive, errorStatuses: [409] },
    },
    async (request, reply) => {
      const { view, version } = await archivePatient(db, request.actor, request.params.id);
      setEtag(reply, version);
      return view;
    },
  );

  app.post(
    '/admin/v1/clinics/:clinicId/patients/:id/erase',
    {
      schema: {
        operationId: 'adminErasePatient',
        tags: [TAG],
        summary: 'Erase a patient for good',
        description:
          "Every personal and clinical field becomes null, for good; the id stays so that appointments, calls and leads keep linking to it. The free text of the patient's appointments (title, reason, notes, clinical and completion notes) the summary and transcript of its calls, its chat messages and conversations' number, and the notes of its recall and confirmation attempts and waitlist entries are cleared too; its documents lose title and file name and their bytes are deleted at once. Records `patient.archived` with `data.reason: erased`. Done before: `409 already_erased`.",
        params: ClinicItemParams,
        response: { 200: PatientSchema },
      },
      config: { clinicActor: true, reasons: PATIENT_REASONS.erase, errorStatuses: [409] },
    },
    async (request, reply) => {
      const { view, version } = await erasePatient(db, request.actor, request.params.id, depsOf(ctx));
      setEtag(reply, version);
      return view;
    },
  );

  app.post(
    '/admin/v1/clinics/:clinicId/patients/import',
    {
      schema: {
        operationId: 'adminImportPatients',
        tags: [TAG],
        summary: 'Import a list of patients',
        description: `1 to ${IMPORT_MAX} patients, created all or none in one transaction (every wrong field of every item is named, e.g. \`patients.3.phone\`). A duplicate of an existing patient is \`409 duplicate_patient\` with \`details.index\`; the same person twice in the list is \`409 duplicate_in_list\`; the plan limit applies to the whole list. More than 50 creations record one \`events.skipped\` (reason \`bulk_import\`, \`data.count\`) instead of one \`patient.created\` each.`,
        params: ClinicParams,
        body: PatientImportSchema,
        response: { 201: PatientImportResultSchema },
      },
      config: { clinicActor: true, reasons: PATIENT_REASONS.import, errorStatuses: [409], bodyIssues: patientImportIssues },
    },
    async (request, reply) => {
      const result = await importPatients(db, request.actor, request.body.patients);
      return reply.status(201).send({ created: result.ids.length, ...result });
    },
  );

  app.get(
    '/admin/v1/clinics/:clinicId/leads/:id',
    {
      config: { clinicActor: true },
      schema: {
        operationId: 'adminGetLead',
        tags: [TAG],
        summary: 'Read a lead with its activities',
        params: ClinicItemParams,
        response: { 200: LeadDetailSchema },
      },
    },
    async (request, reply) => {
      const { view, version } = await getLead(db, request.actor, request.params.id);
      setEtag(reply, version);
      return view as typeof view & { activities: NonNullable<typeof view.activities> };
    },
  );

  app.patch(
    '/admin/v1/clinics/:clinicId/leads/:id',
    {
      schema: {
        operationId: 'adminUpdateLead',
        tags: [TAG],
        summary: "Change a lead's status, owner, follow-up, notes or value",
        description:
          'Any status may follow any other (the spec shows no transitions); a status change adds a `status_change` activity. A converted lead stays `won`: another status is `409 lead_converted`. `If-Match` supported.',
        params: ClinicItemParams,
        headers: IfMatchHeaders,
        body: LeadChangesSchema,
        response: { 200: LeadSchema },
      },
      config: { clinicActor: true, reasons: LEAD_REASONS.update, errorStatuses: [409], bodyIssues: false },
    },
    async (request, reply) => {
      const { view, version } = await updateLead(db, request.actor, request.params.id, request.body, expectedVersion(request));
      setEtag(reply, version);
      return view;
    },
  );

  app.post(
    '/admin/v1/clinics/:clinicId/leads/:id/activities',
    {
      schema: {
        operationId: 'adminAddLeadActivity',
        tags: [TAG],
        summary: 'Add an activity to a lead',
        description: 'Every kind but `note` and `status_change` is a contact: it moves `lastContactedAt` forward to `at` (default now).',
        params: ClinicItemParams,
        body: NewActivitySchema,
        response: { 201: ActivitySchema },
      },
      config: { clinicActor: true, bodyIssues: false },
    },
    async (request, reply) => {
      return reply.status(201).send(await addActivity(db, request.actor, request.params.id, request.body));
    },
  );

  app.post(
    '/admin/v1/clinics/:clinicId/leads/:id/convert',
    {
      schema: {
        operationId: 'adminConvertLead',
        tags: [TAG],
        summary: 'Convert a lead into a patient',
        description:
          "With `patientId`, links the lead to that existing patient; otherwise creates a patient from the lead's name, phone, email and facility (`lastName` must be given when the lead has none; the duplicate and plan-limit rules of POST /v1/patients apply, so a `409 duplicate_patient` tells which patient to pass as `patientId`). The lead gets `status: won`, `convertedPatientId` and `convertedAt`; events `patient.created` (when created) and `lead.converted` with `data.patientId`. Done before: `409 already_converted`.",
        params: ClinicItemParams,
        body: LeadConversionSchema,
        response: { 200: LeadConvertedSchema },
      },
      config: { clinicActor: true, reasons: LEAD_REASONS.convert, errorStatuses: [409], bodyIssues: false },
    },
    async (request) => {
      const { view, patientCreated } = await convertLead(db, request.actor, request.params.id, request.body);
      return { lead: view, patientCreated };
    },
  );
}

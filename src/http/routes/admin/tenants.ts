/** Back office: organizations, clinics, and a clinic's facilities, doctors, chairs, staff profiles (each in the module of its name). */
import type { AppContext } from '../../../context.js';
import * as clinics from '../../../modules/clinics/index.js';
import * as facilities from '../../../modules/facilities/index.js';
import * as doctors from '../../../modules/doctors/index.js';
import * as chairs from '../../../modules/chairs/index.js';
import * as staff from '../../../modules/staff/index.js';
import { ClinicItemParams, ClinicParams, IdParams, List, PersonSchema } from '../../../core/schemas.js';
import {
  ClinicChangesSchema,
  ClinicSchema,
  NewClinicSchema,
  NewOrganizationSchema,
  OrganizationChangesSchema,
  OrganizationSchema,
  clinicBodyIssues,
} from '../../../modules/clinics/index.js';
import { CreatedFacilitySchema, FacilitySummarySchema, NewFacilitySchema, facilityBodyIssues } from '../../../modules/facilities/index.js';
import { DoctorAdminSchema, DoctorChangesSchema, NewDoctorSchema } from '../../../modules/doctors/index.js';
import { ChairAdminSchema, NewChairSchema } from '../../../modules/chairs/index.js';
import { NewStaffSchema, StaffSchema } from '../../../modules/staff/index.js';
import type { App } from '../../types.js';

const TAG = 'Tenants';

export function registerTenantRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;

  app.post(
    '/admin/v1/organizations',
    {
      schema: {
        operationId: 'adminCreateOrganization',
        tags: [TAG],
        summary: 'Create an organization',
        body: NewOrganizationSchema,
        response: { 201: OrganizationSchema },
      },
      config: { bodyIssues: false },
    },
    async (request, reply) => reply.status(201).send(await clinics.createOrganization(db, request.body)),
  );

  app.patch(
    '/admin/v1/organizations/:id',
    {
      schema: {
        operationId: 'adminUpdateOrganization',
        tags: [TAG],
        summary: 'Suspend or reinstate an organization',
        description: "A suspended organization's keys get `403 organization_suspended` on every request (within a second).",
        params: IdParams,
        body: OrganizationChangesSchema,
        response: { 200: OrganizationSchema },
      },
      config: { bodyIssues: false },
    },
    async (request) => {
      const org = await clinics.setOrganizationSuspended(db, request.params.id, request.body.suspended);
      ctx.authenticator.invalidate();
      return org;
    },
  );

  app.post(
    '/admin/v1/clinics',
    {
      schema: {
        operationId: 'adminCreateClinic',
        tags: [TAG],
        summary: 'Create a clinic',
        description:
          'Without `organizationId`, a new organization of the same name is created. `mode: test` makes a test clinic: its keys are `dcm_test_…` and nothing it does is sent outside.',
        body: NewClinicSchema,
        response: { 201: ClinicSchema },
      },
      config: { bodyIssues: clinicBodyIssues },
    },
    async (request, reply) => reply.status(201).send(await clinics.createClinic(db, request.body)),
  );

  app.get(
    '/admin/v1/clinics',
    {
      schema: {
        operationId: 'adminListClinics',
        tags: [TAG],
        summary: 'List clinics, oldest first',
        response: { 200: List(ClinicSchema) },
      },
    },
    async () => ({ data: await clinics.listClinics(db) }),
  );

  app.get(
    '/admin/v1/clinics/:id',
    {
      schema: { operationId: 'adminGetClinic', tags: [TAG], summary: 'Read a clinic', params: IdParams, response: { 200: ClinicSchema } },
    },
    async (request) => clinics.getClinic(db, request.params.id),
  );

  app.patch(
    '/admin/v1/clinics/:id',
    {
      schema: {
        operationId: 'adminUpdateClinic',
        tags: [TAG],
        summary: "Change a clinic's plan, patient limit, AI processing, name or quote rules",
        description:
          '`quotesRequireSignature`: accepting a quote (acceptTreatmentPlan) then needs a `signedDocumentId`, otherwise `403 forbidden`, reason `signature_required`. `retellSecret`: the Retell API key (with the webhook badge) that signs the clinic’s Retell custom-function requests; once set, `POST /v1/agent-tools/retell` refuses a request without its valid `X-Retell-Signature` (`401 unauthenticated`, reason `retell_signature_invalid`); `null` removes it. It is never shown again: the clinic says `retellSecretSet`.',
        params: IdParams,
        body: ClinicChangesSchema,
        response: { 200: ClinicSchema },
      },
      config: { bodyIssues: clinicBodyIssues },
    },
    async (request) => {
      const clinic = await clinics.updateClinic(db, request.params.id, request.body);
      ctx.authenticator.invalidate();
      return clinic;
    },
  );

  app.post(
    '/admin/v1/clinics/:clinicId/facilities',
    {
      schema: {
        operationId: 'adminCreateFacility',
        tags: [TAG],
        summary: 'Create a facility (a location of the clinic)',
        params: ClinicParams,
        body: NewFacilitySchema,
        response: { 201: CreatedFacilitySchema },
      },
      config: { clinicActor: true, bodyIssues: facilityBodyIssues },
    },
    async (request, reply) => reply.status(201).send(await facilities.createFacility(db, request.actor, request.body)),
  );

  app.get(
    '/admin/v1/clinics/:clinicId/facilities',
    {
      schema: {
        operationId: 'adminListFacilities',
        tags: [TAG],
        summary: "List a clinic's facilities, oldest first",
        params: ClinicParams,
        response: { 200: List(FacilitySummarySchema) },
      },
    },
    async (request) => ({ data: await facilities.listAllFacilities(db, request.params.clinicId) }),
  );

  app.post(
    '/admin/v1/clinics/:clinicId/doctors',
    {
      schema: {
        operationId: 'adminCreateDoctor',
        tags: [TAG],
        summary: 'Create a doctor',
        params: ClinicParams,
        description: '`displayName` is how the clinic names the doctor to patients and agents (“Dott.ssa Laura Bianchi”); default “Dott. <first> <last>”.',
        body: NewDoctorSchema,
        response: { 201: PersonSchema },
      },
      config: { bodyIssues: false },
    },
    async (request, reply) => reply.status(201).send(await doctors.createDoctor(db, request.params.clinicId, request.body)),
  );

  app.get(
    '/admin/v1/clinics/:clinicId/doctors',
    {
      schema: {
        operationId: 'adminListDoctors',
        tags: [TAG],
        summary: 'List doctors, oldest first',
        params: ClinicParams,
        response: { 200: List(PersonSchema) },
      },
    },
    async (request) => ({ data: await doctors.listAllDoctors(db, request.params.clinicId) }),
  );

  app.patch(
    '/admin/v1/clinics/:clinicId/doctors/:id',
    {
      schema: {
        operationId: 'adminUpdateDoctor',
        tags: [TAG],
        summary: 'Change a doctor',
        description:
          'Only the fields sent change. `displayName: null` goes back to the default “Dott. <first> <last>”. The change shows in `GET /v1/doctors?updatedSince=`.',
        params: ClinicItemParams,
        body: DoctorChangesSchema,
        response: { 200: DoctorAdminSchema },
      },
      config: { bodyIssues: false },
    },
    async (request) => doctors.updateDoctor(db, request.params.clinicId, request.params.id, request.body),
  );

  app.post(
    '/admin/v1/clinics/:clinicId/chairs',
    {
      schema: {
        operationId: 'adminCreateChair',
        tags: [TAG],
        summary: 'Create a chair (a dental unit of a facility)',
        params: ClinicParams,
        body: NewChairSchema,
        response: { 201: ChairAdminSchema },
      },
      config: { bodyIssues: false },
    },
    async (request, reply) => reply.status(201).send(await chairs.createChair(db, request.params.clinicId, request.body)),
  );

  app.get(
    '/admin/v1/clinics/:clinicId/chairs',
    {
      schema: {
        operationId: 'adminListChairs',
        tags: [TAG],
        summary: 'List chairs, oldest first',
        params: ClinicParams,
        response: { 200: List(ChairAdminSchema) },
      },
    },
    async (request) => ({ data: await chairs.listAllChairs(db, request.params.clinicId) }),
  );

  app.post(
    '/admin/v1/clinics/:clinicId/staff-profiles',
    {
      schema: {
        operationId: 'adminCreateStaffProfile',
        tags: [TAG],
        summary: 'Create a staff profile (task assignee, lead owner)',
        params: ClinicParams,
        body: NewStaffSchema,
        response: { 201: StaffSchema },
      },
      config: { bodyIssues: false },
    },
    async (request, reply) => reply.status(201).send(await staff.createStaffProfile(db, request.params.clinicId, request.body)),
  );

  app.get(
    '/admin/v1/clinics/:clinicId/staff-profiles',
    {
      schema: {
        operationId: 'adminListStaffProfiles',
        tags: [TAG],
        summary: 'List staff profiles, oldest first',
        params: ClinicParams,
        response: { 200: List(StaffSchema) },
      },
    },
    async (request) => ({ data: await staff.listAllStaffProfiles(db, request.params.clinicId) }),
  );
}

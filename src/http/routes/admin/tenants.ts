/** Back office: organizations, clinics, facilities, doctors, chairs, staff profiles. */
import { Type } from 'typebox';
import type { AppContext } from '../../../context.js';
import * as clinics from '../../../modules/clinics/service.js';
import { Email, IdParams, Nullable, OutputTimestamp, StringEnum, Uuid } from '../../../core/schemas.js';
import type { App } from '../../types.js';
import { clinicActor } from './actor.js';

const TAG = 'Tenants';
const ClinicParams = Type.Object({ clinicId: Uuid() }, { additionalProperties: false });

const Organization = Type.Object(
  { id: Uuid(), name: Type.String(), suspended: Type.Boolean(), suspendedAt: Nullable(OutputTimestamp()), createdAt: OutputTimestamp() },
  { additionalProperties: false },
);

const Clinic = Type.Object(
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

const Name = Type.String({ minLength: 1, maxLength: 200 });
const ShortText = (max: number) => Nullable(Type.String({ maxLength: max }));

export function registerTenantRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;

  app.post(
    '/admin/v1/organizations',
    {
      schema: {
        operationId: 'adminCreateOrganization',
        tags: [TAG],
        summary: 'Create an organization',
        body: Type.Object({ name: Name }, { additionalProperties: false }),
        response: { 201: Organization },
      },
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
        body: Type.Object({ suspended: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: Organization },
      },
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
        body: Type.Object(
          {
            name: Name,
            organizationId: Type.Optional(Uuid()),
            mode: Type.Optional(StringEnum(['live', 'test'])),
            planActive: Type.Optional(Type.Boolean()),
            patientLimit: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
            aiEnabled: Type.Optional(Type.Boolean()),
            timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          },
          { additionalProperties: false },
        ),
        response: { 201: Clinic },
      },
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
        response: { 200: Type.Object({ data: Type.Array(Clinic) }) },
      },
    },
    async () => ({ data: await clinics.listClinics(db) }),
  );

  app.get(
    '/admin/v1/clinics/:id',
    {
      schema: { operationId: 'adminGetClinic', tags: [TAG], summary: 'Read a clinic', params: IdParams, response: { 200: Clinic } },
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
          '`quotesRequireSignature`: accepting a quote (acceptTreatmentPlan) then needs a `signedDocumentId`, otherwise `403 forbidden`, reason `signature_required`.',
        params: IdParams,
        body: Type.Object(
          {
            name: Type.Optional(Name),
            planActive: Type.Optional(Type.Boolean()),
            patientLimit: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
            aiEnabled: Type.Optional(Type.Boolean()),
            timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            quotesRequireSignature: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: { 200: Clinic },
      },
    },
    async (request) => {
      const clinic = await clinics.updateClinic(db, request.params.id, request.body);
      ctx.authenticator.invalidate();
      return clinic;
    },
  );

  const Facility = Type.Object({ id: Uuid(), name: Type.String() }, { additionalProperties: false });
  app.post(
    '/admin/v1/clinics/:clinicId/facilities',
    {
      schema: {
        operationId: 'adminCreateFacility',
        tags: [TAG],
        summary: 'Create a facility (a location of the clinic)',
        params: ClinicParams,
        body: Type.Object(
          {
            name: Name,
            street: Type.Optional(ShortText(200)),
            city: Type.Optional(ShortText(100)),
            province: Type.Optional(ShortText(100)),
            zipCode: Type.Optional(ShortText(20)),
            phone: Type.Optional(ShortText(40)),
            email: Type.Optional(Nullable(Email(200))),
            isMainLocation: Type.Optional(Type.Boolean()),
            avgAppointmentMinutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 600 })),
            workingSchedule: Type.Optional(Type.Unknown()),
          },
          { additionalProperties: false },
        ),
        response: { 201: Facility },
      },
    },
    async (request, reply) => reply.status(201).send(await clinics.createFacility(db, await clinicActor(ctx, request, request.params.clinicId), request.body)),
  );

  app.get(
    '/admin/v1/clinics/:clinicId/facilities',
    {
      schema: {
        operationId: 'adminListFacilities',
        tags: [TAG],
        summary: "List a clinic's facilities, oldest first",
        params: ClinicParams,
        response: { 200: Type.Object({ data: Type.Array(Type.Object({ id: Uuid(), name: Type.String(), city: Nullable(Type.String()) })) }) },
      },
    },
    async (request) => ({ data: await clinics.listFacilities(db, request.params.clinicId) }),
  );

  const Person = Type.Object({ id: Uuid(), facilityId: Nullable(Uuid()), firstName: Type.String(), lastName: Type.String() });
  const PersonBody = {
    firstName: Type.String({ minLength: 1, maxLength: 100 }),
    lastName: Type.String({ minLength: 1, maxLength: 100 }),
    facilityId: Type.Optional(Nullable(Uuid())),
  };

  app.post(
    '/admin/v1/clinics/:clinicId/doctors',
    {
      schema: {
        operationId: 'adminCreateDoctor',
        tags: [TAG],
        summary: 'Create a doctor',
        params: ClinicParams,
        description: '`displayName` is how the clinic names the doctor to patients and agents (“Dott.ssa Laura Bianchi”); default “Dott. <first> <last>”.',
        body: Type.Object(
          { ...PersonBody, specialty: Type.Optional(ShortText(100)), displayName: Type.Optional(ShortText(150)) },
          { additionalProperties: false },
        ),
        response: { 201: Person },
      },
    },
    async (request, reply) => reply.status(201).send(await clinics.createDoctor(db, request.params.clinicId, request.body)),
  );

  app.get(
    '/admin/v1/clinics/:clinicId/doctors',
    {
      schema: {
        operationId: 'adminListDoctors',
        tags: [TAG],
        summary: 'List doctors, oldest first',
        params: ClinicParams,
        response: { 200: Type.Object({ data: Type.Array(Person) }) },
      },
    },
    async (request) => ({ data: await clinics.listDoctors(db, request.params.clinicId) }),
  );

  const Chair = Type.Object({ id: Uuid(), facilityId: Uuid(), name: Type.String() });
  app.post(
    '/admin/v1/clinics/:clinicId/chairs',
    {
      schema: {
        operationId: 'adminCreateChair',
        tags: [TAG],
        summary: 'Create a chair (a dental unit of a facility)',
        params: ClinicParams,
        body: Type.Object({ name: Name, facilityId: Uuid() }, { additionalProperties: false }),
        response: { 201: Chair },
      },
    },
    async (request, reply) => reply.status(201).send(await clinics.createChair(db, request.params.clinicId, request.body)),
  );

  app.get(
    '/admin/v1/clinics/:clinicId/chairs',
    {
      schema: {
        operationId: 'adminListChairs',
        tags: [TAG],
        summary: 'List chairs, oldest first',
        params: ClinicParams,
        response: { 200: Type.Object({ data: Type.Array(Chair) }) },
      },
    },
    async (request) => ({ data: await clinics.listChairs(db, request.params.clinicId) }),
  );

  const Staff = Type.Object({
    id: Uuid(),
    facilityId: Nullable(Uuid()),
    firstName: Type.String(),
    lastName: Type.String(),
    email: Nullable(Type.String()),
    role: Type.String(),
  });
  app.post(
    '/admin/v1/clinics/:clinicId/staff-profiles',
    {
      schema: {
        operationId: 'adminCreateStaffProfile',
        tags: [TAG],
        summary: 'Create a staff profile (task assignee, lead owner)',
        params: ClinicParams,
        body: Type.Object(
          { ...PersonBody, email: Type.Optional(Nullable(Email(200))), role: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })) },
          { additionalProperties: false },
        ),
        response: { 201: Staff },
      },
    },
    async (request, reply) => reply.status(201).send(await clinics.createStaffProfile(db, request.params.clinicId, request.body)),
  );

  app.get(
    '/admin/v1/clinics/:clinicId/staff-profiles',
    {
      schema: {
        operationId: 'adminListStaffProfiles',
        tags: [TAG],
        summary: 'List staff profiles, oldest first',
        params: ClinicParams,
        response: { 200: Type.Object({ data: Type.Array(Staff) }) },
      },
    },
    async (request) => ({ data: await clinics.listStaffProfiles(db, request.params.clinicId) }),
  );
}

/** /v1 Clinic area: facilities, doctors, chairs and staff profiles, as lists a key can sync. */
import type { AppContext } from '../../../context.js';
import { ChairSchema, listChairs } from '../../../modules/chairs/index.js';
import { DoctorListQuerySchema, DoctorSchema, getDoctor, listDoctors } from '../../../modules/doctors/index.js';
import { FacilitySchema, listFacilities } from '../../../modules/facilities/index.js';
import { StaffProfileSchema, listStaffProfiles } from '../../../modules/staff/index.js';
import { IdParams, Page, UpdatedListQuerySchema } from '../../../core/schemas.js';
import type { App } from '../../types.js';

const TAG = 'Clinic';
const ORDER =
  'Order: by last modification, oldest first, then by id (stable under paging; resume with `updatedSince`). A key limited to facilities sees only the rows of its facilities (rows of no facility only to an unrestricted key).';

export function registerClinicRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/facilities',
    {
      schema: {
        operationId: 'listFacilities',
        tags: [TAG],
        summary: 'List the facilities',
        description: ['The clinic’s facilities: where they are, their phone and opening hours.', ORDER].join('\n\n'),
        querystring: UpdatedListQuerySchema,
        response: { 200: Page(FacilitySchema) },
      },
      config: { scopes: ['clinic:read'] },
    },
    async (request) => listFacilities(ctx.db, request.actor, request.query),
  );

  app.get(
    '/v1/doctors',
    {
      schema: {
        operationId: 'listDoctors',
        tags: [TAG],
        summary: 'List the doctors',
        description: [
          'The clinic’s doctors: name, display name, specialty, facility, the calendars they work in (`calendarIds`, those the key sees), and whether they are active. Filters: `facilityId`, `calendarId`.',
          ORDER,
        ].join('\n\n'),
        querystring: DoctorListQuerySchema,
        response: { 200: Page(DoctorSchema) },
      },
      config: { scopes: ['clinic:read'] },
    },
    async (request) => listDoctors(ctx.db, request.actor, request.query),
  );

  app.get(
    '/v1/doctors/:id',
    {
      schema: {
        operationId: 'getDoctor',
        tags: [TAG],
        summary: 'Read a doctor',
        description: 'One doctor (see listDoctors). A doctor of a facility the key does not see (or of no facility, for a key limited to facilities) is `404`.',
        params: IdParams,
        response: { 200: DoctorSchema },
      },
      config: { scopes: ['clinic:read'] },
    },
    async (request) => getDoctor(ctx.db, request.actor, request.params.id),
  );

  app.get(
    '/v1/chairs',
    {
      schema: {
        operationId: 'listChairs',
        tags: [TAG],
        summary: 'List the chairs',
        description: ['The clinic’s dental chairs, each in a facility.', ORDER].join('\n\n'),
        querystring: UpdatedListQuerySchema,
        response: { 200: Page(ChairSchema) },
      },
      config: { scopes: ['clinic:read'] },
    },
    async (request) => listChairs(ctx.db, request.actor, request.query),
  );

  app.get(
    '/v1/staff-profiles',
    {
      schema: {
        operationId: 'listStaffProfiles',
        tags: [TAG],
        summary: 'List the staff profiles',
        description: [
          'The people who work at the clinic, as task assignees (`assigneeId`) and lead owners (`assignedTo`) name them: name, role, facility, active. No contact details.',
          ORDER,
        ].join('\n\n'),
        querystring: UpdatedListQuerySchema,
        response: { 200: Page(StaffProfileSchema) },
      },
      config: { scopes: ['clinic:read'] },
    },
    async (request) => listStaffProfiles(ctx.db, request.actor, request.query),
  );
}

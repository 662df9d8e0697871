import { makeCalendar } from '../../helpers/seed.js';
import type { MatrixCase } from '../matrix.js';

export const cases: MatrixCase[] = [
  { operationId: 'getMeta', method: 'GET', scopes: [], resource: false, prepare: async () => ({ path: '/v1/meta' }) },
  { operationId: 'listEventTypes', method: 'GET', scopes: [], resource: false, prepare: async () => ({ path: '/v1/meta/event-types' }) },
  { operationId: 'listFacilities', method: 'GET', scopes: ['clinic:read'], resource: false, prepare: async () => ({ path: '/v1/facilities' }) },
  { operationId: 'listDoctors', method: 'GET', scopes: ['clinic:read'], resource: false, prepare: async () => ({ path: '/v1/doctors' }) },
  {
    operationId: 'getDoctor',
    method: 'GET',
    scopes: ['clinic:read'],
    resource: true,
    prepare: async (_server, tenant) => ({ path: `/v1/doctors/${tenant.doctorId}` }),
  },
  { operationId: 'listChairs', method: 'GET', scopes: ['clinic:read'], resource: false, prepare: async () => ({ path: '/v1/chairs' }) },
  { operationId: 'listStaffProfiles', method: 'GET', scopes: ['clinic:read'], resource: false, prepare: async () => ({ path: '/v1/staff-profiles' }) },
  { operationId: 'listCalendars', method: 'GET', scopes: ['clinic:read'], resource: false, prepare: async () => ({ path: '/v1/calendars' }) },
  {
    operationId: 'getCalendar',
    method: 'GET',
    scopes: ['clinic:read'],
    resource: true,
    prepare: async (server, tenant) => ({ path: `/v1/calendars/${(await makeCalendar(server, tenant)).id}` }),
  },
];

import { randomUUID } from 'node:crypto';
import type { MatrixCase } from '../matrix.js';
import type { Tenant } from '../../helpers/factories.js';
import type { TestServer } from '../../helpers/server.js';

let seq = 0;
const uniquePhone = () => `+39 347 ${String(1000000 + ++seq)}`;

async function patientIn(server: TestServer, tenant: Tenant): Promise<string> {
  const res = await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/patients/import`, {
    patients: [{ firstName: 'Matrice', lastName: `Paziente${++seq}`, facilityId: tenant.facilityIds[0] }],
  });
  return res.body.ids[0];
}

async function leadIn(server: TestServer, tenant: Tenant): Promise<string> {
  const res = await server.call('POST', '/v1/leads', {
    token: tenant.token,
    body: { firstName: 'Matrice', phone: uniquePhone(), facilityId: tenant.facilityIds[0] },
  });
  return res.body.id;
}

async function callIn(server: TestServer, tenant: Tenant): Promise<string> {
  const res = await server.call('POST', '/v1/calls', {
    token: tenant.token,
    body: { externalCallId: randomUUID(), direction: 'inbound', from: 'anonymous', to: '+39 02 1234567', facilityId: tenant.facilityIds[0] },
  });
  return res.body.id;
}

export const cases: MatrixCase[] = [
  {
    operationId: 'createPatient',
    method: 'POST',
    scopes: ['patients:write'],
    resource: false,
    okStatus: 201,
    prepare: async (_s, tenant) => ({ path: '/v1/patients', body: { firstName: 'Matrice', lastName: `Nuovo${++seq}`, facilityId: tenant.facilityIds[0] } }),
  },
  {
    operationId: 'getPatient',
    method: 'GET',
    scopes: ['patients:read'],
    resource: true,
    prepare: async (server, tenant) => ({ path: `/v1/patients/${await patientIn(server, tenant)}` }),
  },
  {
    operationId: 'searchPatients',
    method: 'GET',
    scopes: ['patients:read'],
    resource: false,
    okStatus: 200,
    prepare: async () => ({ path: '/v1/patients/search?q=matrice' }),
  },
  {
    operationId: 'lookupPatient',
    method: 'GET',
    scopes: ['patients:read'],
    resource: false,
    okStatus: 200,
    prepare: async () => ({ path: '/v1/patients/lookup?phone=3331234567' }),
  },
  {
    operationId: 'createLead',
    method: 'POST',
    scopes: ['leads:write'],
    resource: false,
    okStatus: 201,
    prepare: async (_s, tenant) => ({ path: '/v1/leads', body: { firstName: 'Matrice', phone: uniquePhone(), facilityId: tenant.facilityIds[0] } }),
  },
  {
    operationId: 'getLead',
    method: 'GET',
    scopes: ['leads:read'],
    resource: true,
    prepare: async (server, tenant) => ({ path: `/v1/leads/${await leadIn(server, tenant)}` }),
  },
  {
    operationId: 'createCall',
    method: 'POST',
    scopes: ['calls:write'],
    resource: false,
    okStatus: 201,
    prepare: async (_s, tenant) => ({
      path: '/v1/calls',
      body: { externalCallId: randomUUID(), direction: 'inbound', from: 'anonymous', to: '+39 02 1234567', facilityId: tenant.facilityIds[0] },
    }),
  },
  {
    operationId: 'getCall',
    method: 'GET',
    scopes: ['calls:read'],
    resource: true,
    prepare: async (server, tenant) => ({ path: `/v1/calls/${await callIn(server, tenant)}` }),
  },
];

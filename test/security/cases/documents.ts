/** Matrix cases of /v1/documents. Non-clinical categories: the clinical scopes are tested in test/modules/documents. */
import type { MatrixCase } from '../matrix.js';
import type { Tenant } from '../../helpers/factories.js';
import type { TestServer } from '../../helpers/server.js';
import { announced, inline, pdf } from '../../modules/documents/helpers.js';

let seq = 0;

async function patientIn(server: TestServer, tenant: Tenant): Promise<string> {
  const res = await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/patients/import`, {
    patients: [{ firstName: 'Matrice', lastName: `Documento${++seq}`, facilityId: tenant.facilityIds[0] }],
  });
  return res.body.ids[0];
}

async function documentIn(server: TestServer, tenant: Tenant, upload = false): Promise<string> {
  const patientId = await patientIn(server, tenant);
  const bytes = pdf(600);
  const res = await server.call('POST', '/v1/documents', { token: tenant.token, body: upload ? announced(patientId, bytes) : inline(patientId, bytes) });
  return res.body.id;
}

export const cases: MatrixCase[] = [
  {
    operationId: 'createDocument',
    method: 'POST',
    scopes: ['documents:write'],
    resource: false,
    okStatus: 201,
    prepare: async (server, tenant) => ({ path: '/v1/documents', body: inline(await patientIn(server, tenant), pdf(400)) }),
  },
  {
    operationId: 'completeDocument',
    method: 'POST',
    scopes: ['documents:write'],
    resource: true,
    prepare: async (server, tenant) => ({ path: `/v1/documents/${await documentIn(server, tenant)}/complete` }),
  },
  {
    operationId: 'listDocuments',
    method: 'GET',
    scopes: ['documents:read'],
    resource: false,
    okStatus: 200,
    prepare: async () => ({ path: '/v1/documents' }),
  },
  {
    operationId: 'getDocument',
    method: 'GET',
    scopes: ['documents:read'],
    resource: true,
    prepare: async (server, tenant) => ({ path: `/v1/documents/${await documentIn(server, tenant)}` }),
  },
  {
    operationId: 'getDocumentContent',
    method: 'GET',
    scopes: ['documents:read'],
    resource: true,
    okStatus: 200,
    prepare: async (server, tenant) => ({ path: `/v1/documents/${await documentIn(server, tenant)}/content` }),
  },
  {
    operationId: 'archiveDocument',
    method: 'DELETE',
    scopes: ['documents:write'],
    resource: true,
    okStatus: 204,
    prepare: async (server, tenant) => ({ path: `/v1/documents/${await documentIn(server, tenant)}` }),
  },
];

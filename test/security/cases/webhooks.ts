import { recordEvent } from '../../../src/events/record.js';
import { sampleData } from '../../../src/event-schemas.js';
import type { Tenant } from '../../helpers/factories.js';
import type { TestServer } from '../../helpers/server.js';
import type { MatrixCase } from '../matrix.js';

const URL = 'https://hooks.example.com/matrix';

async function newEndpoint(server: TestServer, tenant: Tenant): Promise<string> {
  const res = await server.call('POST', '/v1/webhook-endpoints', {
    token: tenant.token,
    body: { url: URL, events: ['patient.created'] },
  });
  if (res.status !== 201) throw new Error(`endpoint creation failed: ${res.text}`);
  // A documentation address: a test send is refused at once (address_refused), no DNS wait.
  await server.ctx.db.updateTable('webhook_endpoints').set({ url: 'https://192.0.2.1/matrix' }).where('id', '=', res.body.id).execute();
  return res.body.id;
}

/** One destination per tenant for the cases that only read or change it (the clinic limit is 20). */
const shared = new Map<string, Promise<string>>();
function sharedEndpoint(server: TestServer, tenant: Tenant): Promise<string> {
  let p = shared.get(tenant.clinicId);
  if (!p) shared.set(tenant.clinicId, (p = newEndpoint(server, tenant)));
  return p;
}

/** A fresh delivery of the shared destination; `finished` marks it succeeded (redeliverable). */
async function newDelivery(server: TestServer, tenant: Tenant, finished: boolean): Promise<string> {
  const endpointId = await sharedEndpoint(server, tenant);
  await server.ctx.db.transaction().execute((trx) =>
    recordEvent(trx, {
      clinicId: tenant.clinicId,
      type: 'patient.created',
      facilityId: tenant.facilityIds[0]!,
      data: sampleData('patient.created', tenant.facilityIds[0]!),
    }),
  );
  const row = await server.ctx.db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('endpoint_id', '=', endpointId)
    .orderBy('created_at', 'desc')
    .executeTakeFirstOrThrow();
  if (finished) {
    await server.ctx.db.updateTable('webhook_deliveries').set({ status: 'succeeded', finished_at: new Date() }).where('id', '=', row.id).execute();
  }
  return row.id;
}

export const cases: MatrixCase[] = [
  {
    operationId: 'createWebhookEndpoint',
    method: 'POST',
    scopes: ['webhooks:write', 'patients:read'],
    resource: false,
    okStatus: 201,
    prepare: async () => ({ path: '/v1/webhook-endpoints', body: { url: URL, events: ['patient.created'] } }),
  },
  {
    operationId: 'listWebhookEndpoints',
    method: 'GET',
    scopes: ['webhooks:read'],
    resource: false,
    prepare: async () => ({ path: '/v1/webhook-endpoints' }),
  },
  {
    operationId: 'getWebhookEndpoint',
    method: 'GET',
    scopes: ['webhooks:read'],
    resource: true,
    prepare: async (server, tenant) => ({ path: `/v1/webhook-endpoints/${await sharedEndpoint(server, tenant)}` }),
  },
  {
    operationId: 'updateWebhookEndpoint',
    method: 'PATCH',
    scopes: ['webhooks:write'],
    resource: true,
    prepare: async (server, tenant) => ({ path: `/v1/webhook-endpoints/${await sharedEndpoint(server, tenant)}`, body: { enabled: true } }),
  },
  {
    operationId: 'deleteWebhookEndpoint',
    method: 'DELETE',
    scopes: ['webhooks:write'],
    resource: true,
    okStatus: 204,
    prepare: async (server, tenant) => ({ path: `/v1/webhook-endpoints/${await newEndpoint(server, tenant)}` }),
  },
  {
    operationId: 'rotateWebhookEndpointSecret',
    method: 'POST',
    scopes: ['webhooks:write'],
    resource: true,
    prepare: async (server, tenant) => ({ path: `/v1/webhook-endpoints/${await sharedEndpoint(server, tenant)}/rotate-secret`, body: { overlapMinutes: 0 } }),
  },
  {
    operationId: 'testWebhookEndpoint',
    method: 'POST',
    scopes: ['webhooks:write'],
    resource: true,
    // The destination points at a documentation address: the send is refused (address_refused), the call still answers 200.
    prepare: async (server, tenant) => ({ path: `/v1/webhook-endpoints/${await sharedEndpoint(server, tenant)}/test` }),
  },
  {
    operationId: 'replayWebhookEndpoint',
    method: 'POST',
    scopes: ['webhooks:write'],
    resource: true,
    prepare: async (server, tenant) => ({
      path: `/v1/webhook-endpoints/${await sharedEndpoint(server, tenant)}/replay`,
      body: { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date().toISOString() },
    }),
  },
  {
    operationId: 'listEvents',
    method: 'GET',
    scopes: ['webhooks:read'],
    resource: false,
    prepare: async () => ({ path: '/v1/events' }),
  },
  {
    operationId: 'listWebhookDeliveries',
    method: 'GET',
    scopes: ['webhooks:read'],
    resource: false,
    prepare: async () => ({ path: '/v1/webhook-deliveries' }),
  },
  {
    operationId: 'getWebhookDelivery',
    method: 'GET',
    scopes: ['webhooks:read'],
    resource: true,
    prepare: async (server, tenant) => ({ path: `/v1/webhook-deliveries/${await newDelivery(server, tenant, false)}` }),
  },
  {
    operationId: 'redeliverWebhookDelivery',
    method: 'POST',
    scopes: ['webhooks:write'],
    resource: true,
    okStatus: 202,
    prepare: async (server, tenant) => ({ path: `/v1/webhook-deliveries/${await newDelivery(server, tenant, true)}/redeliver` }),
  },
];

/** Security matrix cases of quotes, invoices, payments and balances. */
import { randomUUID } from 'node:crypto';
import { insertPatient } from '../../helpers/seed.js';
import type { Tenant } from '../../helpers/factories.js';
import type { TestServer } from '../../helpers/server.js';
import type { MatrixCase } from '../matrix.js';

/** A quote of a patient of the tenant's first facility, moved to `status`. */
async function quoteIn(server: TestServer, tenant: Tenant, status: 'draft' | 'presented' = 'draft'): Promise<string> {
  const patientId = await insertPatient(server, tenant);
  const base = `/admin/v1/clinics/${tenant.clinicId}/treatment-plans`;
  const res = await server.admin('POST', base, { patientId, title: 'Matrice', items: [{ description: 'Detartrasi', unitAmount: 80 }] });
  if (status === 'presented') await server.admin('POST', `${base}/${res.body.id}/status`, { status: 'presented' });
  return res.body.id;
}

async function invoiceIn(server: TestServer, tenant: Tenant): Promise<{ id: string; patientId: string }> {
  const patientId = await insertPatient(server, tenant);
  const res = await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/invoices`, {
    patientId,
    number: `M-${randomUUID().slice(0, 8)}`,
    lines: [{ description: 'Visita', unitAmount: 60 }],
  });
  return { id: res.body.id, patientId };
}

const quoteDecision = (operationId: string, action: string, body: unknown, status: 'draft' | 'presented'): MatrixCase => ({
  operationId,
  method: 'POST',
  scopes: ['treatment_plans:write'],
  resource: true,
  prepare: async (server, tenant) => ({ path: `/v1/treatment-plans/${await quoteIn(server, tenant, status)}/${action}`, body }),
});

export const cases: MatrixCase[] = [
  {
    operationId: 'listTreatmentPlans',
    method: 'GET',
    scopes: ['treatment_plans:read'],
    resource: false,
    prepare: async () => ({ path: '/v1/treatment-plans' }),
  },
  {
    operationId: 'getTreatmentPlan',
    method: 'GET',
    scopes: ['treatment_plans:read'],
    resource: true,
    prepare: async (server, tenant) => ({ path: `/v1/treatment-plans/${await quoteIn(server, tenant)}` }),
  },
  {
    operationId: 'createTreatmentPlan',
    method: 'POST',
    scopes: ['treatment_plans:write'],
    resource: false,
    okStatus: 201,
    prepare: async (server, tenant) => ({
      path: '/v1/treatment-plans',
      body: { patientId: await insertPatient(server, tenant), items: [{ description: 'Otturazione', teeth: [16], surfaces: ['O'], unitAmount: 90 }] },
    }),
  },
  {
    operationId: 'updateTreatmentPlan',
    method: 'PATCH',
    scopes: ['treatment_plans:write'],
    resource: true,
    prepare: async (server, tenant) => ({ path: `/v1/treatment-plans/${await quoteIn(server, tenant)}`, body: { discount: 5 } }),
  },
  quoteDecision('presentTreatmentPlan', 'present', {}, 'draft'),
  quoteDecision('acceptTreatmentPlan', 'accept', { channel: 'chat' }, 'presented'),
  quoteDecision('rejectTreatmentPlan', 'reject', { reason: 'price' }, 'presented'),
  quoteDecision('cancelTreatmentPlan', 'cancel', undefined, 'draft'),
  {
    operationId: 'listInvoices',
    method: 'GET',
    scopes: ['billing:read'],
    resource: false,
    prepare: async () => ({ path: '/v1/invoices' }),
  },
  {
    operationId: 'getInvoice',
    method: 'GET',
    scopes: ['billing:read'],
    resource: true,
    prepare: async (server, tenant) => ({ path: `/v1/invoices/${(await invoiceIn(server, tenant)).id}` }),
  },
  {
    operationId: 'listPayments',
    method: 'GET',
    scopes: ['billing:read'],
    resource: false,
    prepare: async () => ({ path: '/v1/payments' }),
  },
  {
    operationId: 'getPayment',
    method: 'GET',
    scopes: ['billing:read'],
    resource: true,
    prepare: async (server, tenant) => {
      const inv = await invoiceIn(server, tenant);
      const res = await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/payments`, { amount: 10, method: 'cash', invoiceId: inv.id });
      return { path: `/v1/payments/${res.body.id}` };
    },
  },
  {
    operationId: 'recordPayment',
    method: 'POST',
    scopes: ['billing:write'],
    resource: false,
    okStatus: 201,
    prepare: async (server, tenant) => ({
      path: '/v1/payments',
      body: { amount: 20, method: 'card', reference: `pi_${randomUUID()}`, invoiceId: (await invoiceIn(server, tenant)).id },
    }),
  },
  {
    operationId: 'getPatientBalance',
    method: 'GET',
    scopes: ['billing:read'],
    resource: true,
    prepare: async (server, tenant) => ({ path: `/v1/patients/${(await invoiceIn(server, tenant)).patientId}/balance` }),
  },
];

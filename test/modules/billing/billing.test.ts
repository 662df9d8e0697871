import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordOverdueInstallments } from '../../../src/modules/billing/jobs.js';
import type { operations } from '../../../packages/client/src/schema.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { insertPatient } from '../../helpers/seed.js';

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
});
afterAll(() => server.close());

/** The date `offset` days from now in the clinic's zone (the tenants' Europe/Rome): the day the service counts from, also around midnight. */
const ROME_DATE = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Rome' });
const day = (offset: number) => ROME_DATE.format(new Date(Date.now() + offset * 86_400_000));
const events = (clinicId: string, type: string) =>
  server.ctx.db.selectFrom('events').selectAll().where('clinic_id', '=', clinicId).where('type', '=', type).orderBy('created_at').execute();
const PLAN_FIELDS = ['createdAt', 'id', 'installmentCount', 'installments', 'patientId', 'totalAmount', 'treatmentPlanId', 'type'];
const INSTALLMENT_FIELDS = ['amount', 'amountPaid', 'dueDate', 'id', 'overdue', 'paidAt', 'paymentMethod', 'status'];

describe('treatment plans', () => {
  it('presents, accepts and rejects with their events; refuses other transitions', async () => {
    const p = await insertPatient(server, t);
    const item = (unitAmount: number) => ({ description: 'Impianto', teeth: [36], unitAmount });
    const tp = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/treatment-plans`, { patientId: p, title: 'Impianto', items: [item(2500)] });
    expect(tp.status, tp.text).toBe(201);
    expect(tp.body.status).toBe('draft');
    const status = (id: string, s: string) => server.admin('POST', `/admin/v1/clinics/${t.clinicId}/treatment-plans/${id}/status`, { status: s });
    expect((await status(tp.body.id, 'accepted')).body.error.details.reason).toBe('invalid_transition');
    expect((await status(tp.body.id, 'presented')).body.status).toBe('presented');
    expect((await status(tp.body.id, 'accepted')).body.status).toBe('accepted');
    const tp2 = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/treatment-plans`, { patientId: p, items: [item(100)] });
    await status(tp2.body.id, 'presented');
    expect((await status(tp2.body.id, 'rejected')).body.status).toBe('rejected');
    expect((await events(t.clinicId, 'treatment_plan.presented')).length).toBe(2);
    expect((await events(t.clinicId, 'treatment_plan.accepted'))[0]!.data).toMatchObject({ id: tp.body.id, status: 'accepted', patientId: p });
    expect(JSON.stringify((await events(t.clinicId, 'treatment_plan.accepted'))[0]!.data)).not.toContain('Impianto');
    expect((await events(t.clinicId, 'treatment_plan.rejected')).length).toBe(1);
  });
});

describe('payment plans, invoices and payments', () => {
  it('lists plans by state with the overdue flag, patient filter and paging', async () => {
    const tt = await server.factories.tenant();
    const p1 = await insertPatient(server, tt);
    const p2 = await insertPatient(server, tt);
    const mk = async (patientId: string, installments: Array<{ amount: number; dueDate: string }>) => {
      const res = await server.admin('POST', `/admin/v1/clinics/${tt.clinicId}/payment-plans`, { patientId, installments, type: 'prepaid' });
      expect(res.status, res.text).toBe(201);
      await new Promise((r) => setTimeout(r, 3));
      return res.body;
    };
    const overdue = await mk(p1, [
      { amount: 100, dueDate: day(-3) },
      { amount: 150.5, dueDate: day(30) },
    ]);
    const open = await mk(p2, [{ amount: 200, dueDate: day(10) }]);
    const paid = await mk(p2, [{ amount: 50, dueDate: day(-10) }]);
    expect(overdue).toMatchObject({ totalAmount: 250.5, installmentCount: 2, type: 'prepaid' });
    expect(Object.keys(overdue).sort()).toEqual(PLAN_FIELDS);
    expect(Object.keys(overdue.installments[0]).sort()).toEqual(INSTALLMENT_FIELDS);

    const pay = await server.admin('POST', `/admin/v1/clinics/${tt.clinicId}/payments`, { amount: 50, method: 'cash', installmentId: paid.installments[0].id });
    expect(pay.status, pay.text).toBe(201);
    expect(pay.body).toMatchObject({ amount: 50, currency: 'EUR', installmentId: paid.installments[0].id, paymentPlanId: paid.id, reference: null });

    // Typed calls (the project's client, generated OpenAPI types).
    const list = (query: NonNullable<operations['listPaymentPlans']['parameters']['query']> = {}) =>
      server.api(tt.token).call('listPaymentPlans', { params: { query } });
    expect((await list()).data.map((x) => x.id)).toEqual([overdue.id, open.id]);
    expect((await list({ state: 'overdue' })).data.map((x) => x.id)).toEqual([overdue.id]);
    expect((await list({ state: 'all' })).data.map((x) => x.id)).toEqual([overdue.id, open.id, paid.id]);
    expect((await list({ state: 'all', patientId: p2 })).data.map((x) => x.id)).toEqual([open.id, paid.id]);
    const first = (await list({ state: 'overdue' })).data[0]!;
    expect(first.installments.map((i) => i.overdue)).toEqual([true, false]);
    expect(first.installments[0]).toMatchObject({ amount: 100, amountPaid: 0, dueDate: day(-3), status: 'pending', paidAt: null, paymentMethod: null });
    const page1 = await list({ state: 'all', limit: 2 });
    expect((await list({ state: 'all', limit: 2, cursor: page1.nextCursor! })).data.map((x) => x.id)).toEqual([paid.id]);
    // A state outside the contract's list: raw.
    const bad = await server.call('GET', '/v1/payment-plans?state=late&patientId=1&limit=0', { token: tt.token });
    expect(bad.body.error.details.issues.map((i: any) => i.path).sort()).toEqual(['limit', 'patientId', 'state']);
  });

  it('issues invoices and records payments: invoice.paid only when paid in full, never beyond the balance', async () => {
    const p = await insertPatient(server, t);
    const inv = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/invoices`, { patientId: p, number: 'F-2026-1', totalAmount: 300 });
    expect(inv.status, inv.text).toBe(201);
    expect(
      (await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/invoices`, { patientId: p, number: 'F-2026-1', totalAmount: 1 })).body.error.details.reason,
    ).toBe('duplicate_number');
    const pay = (amount: number, extra: Record<string, unknown> = {}) =>
      server.admin('POST', `/admin/v1/clinics/${t.clinicId}/payments`, { amount, method: 'card', invoiceId: inv.body.id, ...extra });
    const first = await pay(100);
    expect(first.status, first.text).toBe(201);
    const invoice = () => server.api(t.token).call('getInvoice', { params: { path: { id: inv.body.id } } });
    expect(await invoice()).toMatchObject({ amountPaid: 100, amountDue: 200, status: 'issued', paidAt: null });
    expect((await events(t.clinicId, 'invoice.paid')).length).toBe(0);
    const over = await pay(250);
    expect(over.status).toBe(409);
    expect(over.body.error.details.reason).toBe('exceeds_balance');
    expect((await pay(0.001)).status).toBe(400);
    const rest = await pay(200);
    expect(rest.status, rest.text).toBe(201);
    expect(await invoice()).toMatchObject({ amountPaid: 300, amountDue: 0, status: 'paid' });
    expect((await events(t.clinicId, 'invoice.issued')).length).toBe(1);
    expect((await events(t.clinicId, 'invoice.paid')).length).toBe(1);
    expect((await events(t.clinicId, 'payment.received')).map((e) => (e.data as any).amount)).toEqual([100, 200]);
    const neither = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/payments`, { amount: 10, method: 'bitcoin' });
    // The schema's wrong field and the missing target together: one 400 names both.
    expect(neither.body.error.details.issues.map((i: any) => i.path)).toEqual(['method', 'invoiceId']);
  });
});

describe('installment.overdue job', () => {
  it('records the event exactly once per overdue installment, even when run concurrently', async () => {
    const tt = await server.factories.tenant();
    const p = await insertPatient(server, tt);
    const plan = await server.admin('POST', `/admin/v1/clinics/${tt.clinicId}/payment-plans`, {
      patientId: p,
      installments: [
        { amount: 10, dueDate: day(-2) },
        { amount: 20, dueDate: day(-1) },
        { amount: 30, dueDate: day(5) },
        { amount: 40, dueDate: day(-5) },
      ],
    });
    const byAmount = (a: number) => plan.body.installments.find((i: any) => i.amount === a).id;
    expect(plan.body.installments.map((i: any) => i.amount)).toEqual([40, 10, 20, 30]);
    await server.admin('POST', `/admin/v1/clinics/${tt.clinicId}/payments`, { amount: 40, method: 'cash', installmentId: byAmount(40) });
    const runs = await Promise.all([
      recordOverdueInstallments(server.ctx.db),
      recordOverdueInstallments(server.ctx.db),
      recordOverdueInstallments(server.ctx.db),
    ]);
    await recordOverdueInstallments(server.ctx.db);
    const ev = await events(tt.clinicId, 'installment.overdue');
    expect(ev.map((e) => (e.data as any).id).sort()).toEqual([byAmount(10), byAmount(20)].sort());
    expect(runs.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(2);
    expect(ev[0]!.data).toMatchObject({ paymentPlanId: plan.body.id, patientId: p, status: 'pending' });
  });
});

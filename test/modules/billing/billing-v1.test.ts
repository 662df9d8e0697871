/** Quotes, invoices, payments and balance on /v1, against the real server. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClientError } from '../../../packages/client/src/index.js';
import { refused, issuePaths as listedPaths } from '../../helpers/refused.js';
import type { operations } from '../../../packages/client/src/schema.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { insertDocument, insertPatient } from '../../helpers/seed.js';

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
/** Typed calls (the project's client, generated OpenAPI types) with a tenant's key. */
const api = (tenant: Tenant) => server.api(tenant.token);
/** Raw calls: only for requests outside the typed contract (wrong-typed bodies and parameters). */
const as = (tenant: Tenant, method: string, path: string, body?: unknown) => server.call(method, path, { token: tenant.token, body });
const paths = (res: { body: any }) => res.body.error.details.issues.map((i: any) => i.path).sort();
const issuePaths = (error: ApiClientError) => listedPaths(error).sort();
const id = (value: string) => ({ params: { path: { id: value } } });

type NewPlan = operations['createTreatmentPlan']['requestBody']['content']['application/json'];
const ITEMS: NewPlan['items'] = [
  { phase: 1, procedureCode: 'IGI-01', description: 'Igiene professionale', unitAmount: 80 },
  { phase: 2, procedureCode: 'IMP-01', description: 'Impianto in titanio', teeth: [36], surfaces: ['O'], quantity: 2, unitAmount: 1200.1, discount: 100.2 },
];

async function draft(tenant: Tenant, patientId: string, extra: Partial<NewPlan> = {}) {
  const { data, response } = await api(tenant).callWithResponse('createTreatmentPlan', {
    body: { patientId, title: 'Riabilitazione implantare', items: ITEMS, discount: 0.1, ...extra },
  });
  expect(response.status).toBe(201);
  return data;
}

describe('quotes', () => {
  it('creates a numbered draft whose amounts are exact sums in cents', async () => {
    const p = await insertPatient(server, t);
    const q = await draft(t, p, { doctorId: t.doctorId, notes: 'Paziente ansioso' });
    expect(q).toMatchObject({ status: 'draft', currency: 'EUR', patientId: p, facilityId: t.facilityIds[0], doctorId: t.doctorId, expired: false });
    expect(q.number).toMatch(/^P-\d{4}-\d{4}$/);
    // 80 + (2 × 1200.10 − 100.20) = 2380.00; − 0.10 = 2379.90: no float drift.
    expect(q).toMatchObject({ subtotal: 2380, discount: 0.1, totalAmount: 2379.9, notes: 'Paziente ansioso', acceptance: null, rejection: null });
    expect(q.items.map((i) => [i.position, i.phase, i.totalAmount, i.status])).toEqual([
      [1, 1, 80, 'planned'],
      [2, 2, 2300, 'planned'],
    ]);
    expect(q.items[1]).toMatchObject({ teeth: [36], surfaces: ['O'], quantity: 2, unitAmount: 1200.1, discount: 100.2 });
    const second = await draft(t, p);
    expect(Number(second.number.slice(-4))).toBe(Number(q.number.slice(-4)) + 1);
  });

  it('names every wrong field at once and writes nothing', async () => {
    const p = await insertPatient(server, t);
    const before = await server.ctx.db
      .selectFrom('treatment_plans')
      .select(({ fn }) => fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const res = await refused(
      api(t).call('createTreatmentPlan', {
        body: {
          patientId: p,
          doctorId: randomUUID(),
          discount: 99999,
          items: [
            { description: 'x', unitAmount: 10.123, teeth: [19, 36, 55, 91] },
            { description: 'y', unitAmount: 10, discount: 11 },
          ],
        },
      }),
    );
    expect(res.status).toBe(400);
    expect(issuePaths(res)).toEqual(['discount', 'doctorId', 'items.0.teeth.0', 'items.0.teeth.3', 'items.0.unitAmount', 'items.1.discount'].sort());
    // Outside the typed contract (a wrong surface, an unknown field): raw.
    const schema = await as(t, 'POST', '/v1/treatment-plans', { patientId: 'x', items: [{ description: '', unitAmount: -1, surfaces: ['X'] }], extra: 1 });
    expect(paths(schema)).toEqual(expect.arrayContaining(['patientId', 'items.0.description', 'items.0.unitAmount', 'items.0.surfaces.0']));
    const after = await server.ctx.db
      .selectFrom('treatment_plans')
      .select(({ fn }) => fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toEqual(before.n);
    const noWrite = await server.factories.key(t.clinicId, ['treatment_plans:write']);
    const notes = await refused(server.api(noWrite.token).call('createTreatmentPlan', { body: { patientId: p, items: ITEMS, notes: 'n' } }));
    expect(notes).toMatchObject({ code: 'insufficient_scope', details: { requiredScopes: ['clinical:write'] } });
  });

  it('changes a draft with If-Match, then presents, accepts once and refuses other moves', async () => {
    const p = await insertPatient(server, t);
    const q = await draft(t, p);
    const read = await api(t).callWithResponse('getTreatmentPlan', id(q.id));
    const etag = read.response.headers.get('etag')!;
    const patched = await api(t).callWithResponse('updateTreatmentPlan', {
      ...id(q.id),
      body: { items: [{ description: 'Corona', unitAmount: 650 }], discount: 50 },
      headers: { 'if-match': etag },
    });
    expect(patched.response.status).toBe(200);
    expect(patched.data).toMatchObject({ subtotal: 650, discount: 50, totalAmount: 600 });
    expect(patched.data.items).toHaveLength(1);
    const stale = await refused(api(t).call('updateTreatmentPlan', { ...id(q.id), body: { title: 'x' }, headers: { 'if-match': etag } }));
    expect(stale.reason).toBe('version_mismatch');

    const presented = await api(t).callWithResponse('presentTreatmentPlan', { ...id(q.id), body: {} });
    expect(presented.response.status).toBe(200);
    expect(presented.data).toMatchObject({ status: 'presented', validUntil: day(90) });
    expect(presented.data.presentedAt).not.toBeNull();
    expect((await refused(api(t).call('updateTreatmentPlan', { ...id(q.id), body: { title: 'x' } }))).reason).toBe('invalid_transition');

    const accept = () => api(t).callWithResponse('acceptTreatmentPlan', { ...id(q.id), body: { channel: 'chat' } });
    const accepted = await accept();
    expect(accepted.response.status).toBe(200);
    expect(accepted.data.acceptance).toMatchObject({ channel: 'chat', signedDocumentId: null });
    expect(accepted.data.decidedAt).toBe(accepted.data.acceptance!.acceptedAt);
    const again = await accept();
    expect(again.response.status).toBe(200);
    expect(again.data).toEqual(accepted.data);
    const ev = (await events(t.clinicId, 'treatment_plan.accepted')).filter((e) => (e.data as any).id === q.id);
    expect(ev).toHaveLength(1);
    expect(ev[0]!.data).toMatchObject({ id: q.id, status: 'accepted', totalAmount: 600, currency: 'EUR', acceptanceChannel: 'chat', validUntil: day(90) });
    // No health data in events (spec 6.2): no title, descriptions, teeth or notes.
    const text = JSON.stringify(ev[0]!.data);
    for (const word of ['Corona', 'Riabilitazione', 'teeth', 'notes', 'title', 'items']) expect(text).not.toContain(word);

    const moves = {
      reject: () => api(t).call('rejectTreatmentPlan', { ...id(q.id), body: { reason: 'price' } }),
      cancel: () => api(t).call('cancelTreatmentPlan', id(q.id)),
      present: () => api(t).call('presentTreatmentPlan', { ...id(q.id), body: {} }),
    };
    for (const [move, call] of Object.entries(moves))
      expect((await refused(call())).details, move).toMatchObject({
        reason: 'invalid_transition',
        from: 'accepted',
      });
  });

  it('rejects with a reason and cancels drafts without an event', async () => {
    const p = await insertPatient(server, t);
    const q = await draft(t, p);
    await api(t).call('presentTreatmentPlan', { ...id(q.id), body: { validUntil: day(10) } });
    const rejected = await api(t).call('rejectTreatmentPlan', { ...id(q.id), body: { reason: 'second_opinion', note: 'Sente un altro studio' } });
    expect(rejected).toMatchObject({ status: 'rejected', rejection: { reason: 'second_opinion', note: 'Sente un altro studio' }, validUntil: day(10) });
    const ev = (await events(t.clinicId, 'treatment_plan.rejected')).find((e) => (e.data as any).id === q.id)!;
    expect(JSON.stringify(ev.data)).not.toContain('altro studio');
    // A reason outside the contract's list: raw.
    const bad = await as(t, 'POST', `/v1/treatment-plans/${q.id}/reject`, { reason: 'cost' });
    expect(paths(bad)).toEqual(['reason']);

    const d = await draft(t, p);
    const before = (await server.ctx.db.selectFrom('events').select('id').where('clinic_id', '=', t.clinicId).execute()).length;
    const cancelled = await api(t).call('cancelTreatmentPlan', id(d.id));
    expect(cancelled.status).toBe('cancelled');
    expect((await server.ctx.db.selectFrom('events').select('id').where('clinic_id', '=', t.clinicId).execute()).length).toBe(before);
    expect((await refused(api(t).call('acceptTreatmentPlan', { ...id(d.id), body: { channel: 'chat' } }))).reason).toBe('invalid_transition');
  });

  it('refuses an expired quote and, when the clinic requires it, an acceptance without a signed document', async () => {
    const tt = await server.factories.tenant();
    const p = await insertPatient(server, tt);
    const q = await draft(tt, p);
    await api(tt).call('presentTreatmentPlan', { ...id(q.id), body: { validUntil: day(1) } });
    await server.ctx.db
      .updateTable('treatment_plans')
      .set({ valid_until: day(-2) })
      .where('id', '=', q.id)
      .execute();
    expect((await api(tt).call('getTreatmentPlan', id(q.id))).expired).toBe(true);
    const expired = await refused(api(tt).call('acceptTreatmentPlan', { ...id(q.id), body: { channel: 'voice' } }));
    expect(expired.status).toBe(409);
    expect(expired.details).toMatchObject({ reason: 'quote_expired', validUntil: day(-2) });
    expect((await api(tt).call('getTreatmentPlan', id(q.id))).status).toBe('presented');
    expect(await events(tt.clinicId, 'treatment_plan.accepted')).toHaveLength(0);
    // The past validity is refused at presentation too.
    const q2 = await draft(tt, p);
    expect(issuePaths(await refused(api(tt).call('presentTreatmentPlan', { ...id(q2.id), body: { validUntil: day(-1) } })))).toEqual(['validUntil']);

    const setting = await server.admin('PATCH', `/admin/v1/clinics/${tt.clinicId}`, { quotesRequireSignature: true });
    expect(setting.body.quotesRequireSignature).toBe(true);
    await api(tt).call('presentTreatmentPlan', { ...id(q2.id), body: {} });
    const unsigned = await refused(api(tt).call('acceptTreatmentPlan', { ...id(q2.id), body: { channel: 'portal' } }));
    expect(unsigned.status).toBe(403);
    expect(unsigned).toMatchObject({ code: 'forbidden', details: { reason: 'signature_required' } });
    const doc = await insertDocument(server, tt, p, { category: 'quote' });
    const signed = await api(tt).call('acceptTreatmentPlan', { ...id(q2.id), body: { channel: 'portal', signedDocumentId: doc } });
    expect(signed.acceptance).toMatchObject({ channel: 'portal', signedDocumentId: doc });
  });

  it('shows notes only with clinical:read, logs the reads and lists with filters and pages', async () => {
    const tt = await server.factories.tenant();
    const p1 = await insertPatient(server, tt);
    const p2 = await insertPatient(server, tt);
    const a = await draft(tt, p1, { notes: 'Allergia al lattice' });
    const b = await draft(tt, p2);
    await api(tt).call('presentTreatmentPlan', { ...id(b.id), body: {} });
    const c = await draft(tt, p2);
    const reader = await server.factories.key(tt.clinicId, ['treatment_plans:read']);
    const plain = await server.api(reader.token).call('getTreatmentPlan', { ...id(a.id), headers: { 'x-request-id': 'quote-log-1' } });
    expect(plain.notes).toBeUndefined();
    const log = await server.ctx.db.selectFrom('access_log_entries').selectAll().where('request_id', '=', 'quote-log-1').execute();
    expect(log[0]).toMatchObject({ resource_type: 'treatment_plan', resource_ids: [a.id], fields: ['title', 'items.description'] });
    const full = await api(tt).call('getTreatmentPlan', { ...id(a.id), headers: { 'x-request-id': 'quote-log-2' } });
    expect(full.notes).toBe('Allergia al lattice');
    const log2 = await server.ctx.db.selectFrom('access_log_entries').selectAll().where('request_id', '=', 'quote-log-2').execute();
    expect(log2[0]!.fields).toEqual(['title', 'items.description', 'notes']);

    const list = (query: NonNullable<operations['listTreatmentPlans']['parameters']['query']> = {}) =>
      api(tt).call('listTreatmentPlans', { params: { query } });
    expect((await list()).data.map((x) => x.id)).toEqual([a.id, b.id, c.id]);
    expect((await list({ status: 'presented' })).data.map((x) => x.id)).toEqual([b.id]);
    expect((await list({ patientId: p2, status: 'draft' })).data.map((x) => x.id)).toEqual([c.id]);
    expect((await list({ facilityId: tt.facilityIds[1] })).data).toEqual([]);
    const page = await list({ limit: 2 });
    expect((await list({ limit: 2, cursor: page.nextCursor! })).data.map((x) => x.id)).toEqual([c.id]);
    // Wrong-typed filters: raw.
    const bad = await as(tt, 'GET', '/v1/treatment-plans?status=signed&patientId=1&limit=0');
    expect(paths(bad)).toEqual(['limit', 'patientId', 'status']);
  });
});

async function invoice(tenant: Tenant, patientId: string, body: Record<string, unknown>) {
  const res = await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/invoices`, { patientId, number: `F-${randomUUID().slice(0, 8)}`, ...body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('invoices', () => {
  it('computes VAT per line and the stamp duty in cents, and lists by issue date, status and patient', async () => {
    const tt = await server.factories.tenant();
    const p = await insertPatient(server, tt);
    const q = await draft(tt, p);
    const inv = await invoice(tt, p, {
      treatmentPlanId: q.id,
      dueDate: day(30),
      lines: [
        { description: 'Impianto (36)', quantity: 2, unitAmount: 1200.1, discount: 100.2, treatmentPlanItemId: q.items[1]!.id },
        { description: 'Spazzolino elettrico', unitAmount: 49.99, vatRate: 22 },
      ],
    });
    // Exempt 2300.00 (> 77.47: stamp 2.00); 49.99 × 22 % = 10.9978 → 11.00.
    expect(inv).toMatchObject({
      currency: 'EUR',
      subtotal: 2349.99,
      discount: 100.2,
      tax: 11,
      stampDuty: 2,
      totalAmount: 2362.99,
      amountPaid: 0,
      amountDue: 2362.99,
    });
    expect(inv).toMatchObject({ status: 'issued', treatmentPlanId: q.id, dueDate: day(30), voidedAt: null });
    expect(inv.lines.map((l: any) => [l.totalAmount, l.tax, l.vatRate])).toEqual([
      [2300, 0, 0],
      [60.99, 11, 22],
    ]);
    const issued = (await events(tt.clinicId, 'invoice.issued'))[0]!;
    expect(issued.data).toMatchObject({ id: inv.id, totalAmount: 2362.99, currency: 'EUR' });
    expect(JSON.stringify(issued.data)).not.toContain('Impianto');

    const small = await invoice(tt, p, { lines: [{ description: 'Visita', unitAmount: 50 }], issuedAt: '2026-01-15T10:00:00Z' });
    expect(small).toMatchObject({ stampDuty: 0, totalAmount: 50 });
    const other = await insertPatient(server, tt);
    const wrong = await server.admin('POST', `/admin/v1/clinics/${tt.clinicId}/invoices`, {
      patientId: other,
      number: 'F-X',
      treatmentPlanId: q.id,
      totalAmount: 10,
      lines: [{ description: 'x', unitAmount: 1.001, treatmentPlanItemId: q.items[0]!.id }],
    });
    expect(paths(wrong)).toEqual(['lines.0.treatmentPlanItemId', 'lines.0.unitAmount', 'totalAmount', 'treatmentPlanId']);

    type InvoiceQuery = NonNullable<operations['listInvoices']['parameters']['query']>;
    const list = async (query: InvoiceQuery = {}) =>
      (
        await api(tt).call('listInvoices', {
          params: { query },
          headers: { 'x-request-id': `inv-${new URLSearchParams(query as Record<string, string>)}` },
        })
      ).data.map((x) => x.id);
    expect(await list()).toEqual([inv.id, small.id]);
    expect(await list({ issuedTo: '2026-02-01T00:00:00Z' })).toEqual([small.id]);
    expect(await list({ issuedFrom: '2026-02-01T00:00:00Z', status: 'issued' })).toEqual([inv.id]);
    expect(await list({ patientId: other })).toEqual([]);
    const log = await server.ctx.db.selectFrom('access_log_entries').selectAll().where('request_id', '=', 'inv-').execute();
    expect(log[0]).toMatchObject({ resource_type: 'invoice', resource_ids: [inv.id, small.id], fields: ['lines.description'] });

    const voided = await server.admin('POST', `/admin/v1/clinics/${tt.clinicId}/invoices/${small.id}/void`, {});
    expect(voided.body).toMatchObject({ status: 'void', amountDue: 0 });
    expect(voided.body.voidedAt).not.toBeNull();
    await api(tt).call('recordPayment', { body: { amount: 1, method: 'card', reference: 'void-test', invoiceId: inv.id } });
    const refusedVoid = await server.admin('POST', `/admin/v1/clinics/${tt.clinicId}/invoices/${inv.id}/void`, {});
    expect(refusedVoid.body.error.details.reason).toBe('invoice_has_payments');
  });
});

describe('payments', () => {
  type NewPayment = operations['recordPayment']['requestBody']['content']['application/json'];
  const pay = (tenant: Tenant, body: NewPayment) => api(tenant).callWithResponse('recordPayment', { body });
  /** Not throwing: for concurrent calls whose statuses differ. */
  const payRaw = (tenant: Tenant, body: NewPayment) => api(tenant).raw.POST('/payments', { body });

  it('is idempotent on reference: 201, then 200 with the same payment; another body is reference_reused', async () => {
    const p = await insertPatient(server, t);
    const inv = await invoice(t, p, { totalAmount: 300 });
    const body: NewPayment = { amount: 100.1, method: 'card', reference: `pi_${randomUUID()}`, invoiceId: inv.id };
    const first = await pay(t, body);
    expect(first.response.status).toBe(201);
    expect(first.data).toMatchObject({ amount: 100.1, currency: 'EUR', method: 'card', reference: body.reference, invoiceId: inv.id, patientId: p });
    expect(first.data.allocations).toEqual([{ invoiceId: inv.id, installmentId: null, amount: 100.1 }]);
    const again = await pay(t, body);
    expect(again.response.status).toBe(200);
    expect(again.data).toEqual(first.data);
    const reused = await refused(pay(t, { ...body, amount: 100.2 }));
    expect(reused.status).toBe(409);
    expect(reused.details).toMatchObject({ reason: 'reference_reused', paymentId: first.data.id });
    expect(await api(t).call('getInvoice', id(inv.id))).toMatchObject({ amountPaid: 100.1, amountDue: 199.9 });
    expect(await api(t).call('getPayment', id(first.data.id))).toEqual(first.data);
    const received = (await events(t.clinicId, 'payment.received')).filter((e) => (e.data as any).reference === body.reference);
    expect(received).toHaveLength(1);
  });

  it('answers concurrent retries with one payment, and concurrent payments never exceed the balance', async () => {
    const tt = await server.factories.tenant();
    const p = await insertPatient(server, tt);
    const inv = await invoice(tt, p, { totalAmount: 100 });
    const body: NewPayment = { amount: 30, method: 'card', reference: 'pi_concurrent', invoiceId: inv.id };
    const retries = await Promise.all(Array.from({ length: 6 }, () => payRaw(tt, body)));
    expect(retries.map((r) => r.response.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(retries.map((r) => r.data?.id)).size).toBe(1);
    expect(retries.every((r) => r.data?.id)).toBe(true);
    const different = await Promise.all(
      Array.from({ length: 5 }, (_, n) => payRaw(tt, { amount: 30, method: 'card', reference: `pi_race_${n}`, invoiceId: inv.id })),
    );
    expect(different.map((r) => r.response.status).sort(), different.map((r) => JSON.stringify(r.error ?? r.data)).join('\n')).toEqual([
      201, 201, 409, 409, 409,
    ]);
    expect(different.filter((r) => r.response.status === 409).every((r) => (r.error as any).error.details.reason === 'exceeds_balance')).toBe(true);
    const after = await api(tt).call('getInvoice', id(inv.id));
    expect(after).toMatchObject({ amountPaid: 90, amountDue: 10, status: 'issued' });
    const payments = await server.ctx.db.selectFrom('payments').select('amount').where('clinic_id', '=', tt.clinicId).execute();
    expect(payments).toHaveLength(3);
    expect(await events(tt.clinicId, 'payment.received')).toHaveLength(3);
  });

  it('refuses more than what is open, writing nothing; names every wrong field', async () => {
    const tt = await server.factories.tenant();
    const p = await insertPatient(server, tt);
    const inv = await invoice(tt, p, { totalAmount: 50 });
    const over = await refused(pay(tt, { amount: 50.01, method: 'cash', reference: 'r-over', invoiceId: inv.id }));
    expect(over.status).toBe(409);
    expect(over.details).toMatchObject({ reason: 'exceeds_balance', field: 'invoiceId', balance: 50 });
    expect(await server.ctx.db.selectFrom('payments').select('id').where('clinic_id', '=', tt.clinicId).execute()).toEqual([]);
    expect(await events(tt.clinicId, 'payment.received')).toEqual([]);
    // The refused reference is free again: nothing was kept.
    expect((await pay(tt, { amount: 50, method: 'cash', reference: 'r-over', invoiceId: inv.id })).response.status).toBe(201);
    expect((await events(tt.clinicId, 'invoice.paid')).map((e) => (e.data as any).id)).toEqual([inv.id]);

    const none = await refused(pay(tt, { amount: 1.001, method: 'cash', reference: 'r-none' }));
    expect(issuePaths(none)).toEqual(['amount', 'invoiceId']);
    const two = await refused(
      pay(tt, {
        amount: 1,
        method: 'cash',
        reference: 'r-two',
        invoiceId: inv.id,
        patientId: p,
        installmentId: randomUUID(),
      }),
    );
    expect(issuePaths(two)).toEqual(['installmentId', 'installmentId', 'patientId']);
    // Outside the typed contract (an unknown method, an unreadable date): raw.
    const schema = await as(tt, 'POST', '/v1/payments', { amount: 0, method: 'iou', reference: '', receivedAt: 'ieri' });
    expect(paths(schema)).toEqual(['amount', 'invoiceId', 'method', 'receivedAt', 'reference']);
  });

  it('pays a patient’s oldest due amounts first, settles installments (no longer overdue) and answers the balance', async () => {
    const tt = await server.factories.tenant();
    const p = await insertPatient(server, tt);
    const plan = (
      await server.admin('POST', `/admin/v1/clinics/${tt.clinicId}/payment-plans`, {
        patientId: p,
        installments: [
          { amount: 100, dueDate: day(-5) },
          { amount: 150, dueDate: day(20) },
        ],
      })
    ).body;
    const inv = await invoice(tt, p, { totalAmount: 80, dueDate: day(-1) });
    await invoice(tt, p, { totalAmount: 40, dueDate: day(40) });
    const balance = () => api(tt).call('getPatientBalance', id(p));
    expect(await balance()).toEqual({
      patientId: p,
      currency: 'EUR',
      amountDue: 370,
      overdueAmount: 180,
      nextInstallment: { id: plan.installments[1].id, paymentPlanId: plan.id, dueDate: day(20), amount: 150 },
      openInvoiceCount: 2,
    });
    const paid = await pay(tt, { amount: 200, method: 'bank_transfer', reference: 'sepa-1', patientId: p });
    expect(paid.response.status).toBe(201);
    expect(paid.data.allocations).toEqual([
      { invoiceId: null, installmentId: plan.installments[0].id, amount: 100 },
      { invoiceId: inv.id, installmentId: null, amount: 80 },
      { invoiceId: null, installmentId: plan.installments[1].id, amount: 20 },
    ]);
    expect(paid.data).toMatchObject({ invoiceId: null, installmentId: null });
    const plans = (await api(tt).call('listPaymentPlans', { params: { query: { state: 'all' } } })).data[0]!;
    expect(plans.installments.map((i) => [i.status, i.amountPaid, i.overdue, i.paymentMethod])).toEqual([
      ['paid', 100, false, 'bank_transfer'],
      ['partially_paid', 20, false, 'bank_transfer'],
    ]);
    expect((await api(tt).call('listPaymentPlans', { params: { query: { state: 'overdue' } } })).data).toEqual([]);
    expect(await balance()).toMatchObject({ amountDue: 170, overdueAmount: 0, nextInstallment: { amount: 130 }, openInvoiceCount: 1 });
    expect((await events(tt.clinicId, 'invoice.paid')).map((e) => (e.data as any).id)).toEqual([inv.id]);
    const tooMuch = await refused(pay(tt, { amount: 170.01, method: 'card', reference: 'sepa-2', patientId: p }));
    expect(tooMuch.details).toMatchObject({ reason: 'exceeds_balance', field: 'patientId', balance: 170 });

    const byInstallment = await pay(tt, { amount: 130, method: 'card', reference: 'inst-1', installmentId: plan.installments[1].id });
    expect(byInstallment.data).toMatchObject({ installmentId: plan.installments[1].id, paymentPlanId: plan.id });
    expect(await balance()).toMatchObject({ amountDue: 40, nextInstallment: null });

    const list = (await api(tt).call('listPayments', { params: { query: { invoiceId: inv.id } } })).data;
    expect(list.map((x) => x.reference)).toEqual(['sepa-1']);
    expect((await api(tt).call('listPayments', { params: { query: { patientId: p, limit: 1 } } })).nextCursor).not.toBeNull();
    expect((await refused(api(t).call('getPatientBalance', id(p)))).status).toBe(404);
  });
});

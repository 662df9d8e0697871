/**
 * Billing against a hostile probe: a signed quote names a real signed document, amounts
 * and their sums fit their columns, a reference names only what the key sees and what belongs
 * to the patient, and one 400 names every wrong field, the schema's and the domain's.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../../src/modules/auth/scopes.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { insertDocument, insertPatient } from '../../helpers/seed.js';
import { createDoctor } from '../../../src/modules/doctors/service.js';
import { inline, pdf } from '../documents/helpers.js';

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
});
afterAll(() => server.close());

const post = (token: string, path: string, body?: unknown) => server.call('POST', path, { token, body });
const admin = (tenant: Tenant, path: string, body?: unknown) => server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}${path}`, body);
const paths = (res: { body: any }) => (res.body.error?.details?.issues ?? []).map((i: any) => i.path).sort();
const count = async (table: 'treatment_plans' | 'invoices' | 'payment_plans' | 'payments', clinicId: string) =>
  Number(
    (
      await server.ctx.db
        .selectFrom(table)
        .select((e) => e.fn.countAll().as('n'))
        .where('clinic_id', '=', clinicId)
        .executeTakeFirstOrThrow()
    ).n,
  );
/** An error body without its request id: two answers compared for equality. */
const answer = (res: { status: number; body: any }) => ({ status: res.status, code: res.body.error?.code, details: res.body.error?.details });

async function presented(tenant: Tenant, patientId: string): Promise<string> {
  const q = await post(tenant.token, '/v1/treatment-plans', { patientId, items: [{ description: 'Impianto', unitAmount: 1200 }] });
  expect(q.status, q.text).toBe(201);
  expect((await post(tenant.token, `/v1/treatment-plans/${q.body.id}/present`, {})).status).toBe(200);
  return q.body.id;
}

describe('accepting a quote with a signed document', () => {
  it('accepts only a visible, available consent or quote document of the same patient; anything else is 409 with its reason', async () => {
    const tt = await server.factories.tenant();
    const other = await server.factories.tenant();
    expect((await server.admin('PATCH', `/admin/v1/clinics/${tt.clinicId}`, { quotesRequireSignature: true })).status).toBe(200);
    const p = await insertPatient(server, tt);
    const p2 = await insertPatient(server, tt);
    const q = await presented(tt, p);
    const elsewhereQuote = await presented(tt, p);
    const limited = await server.factories.key(tt.clinicId, [...SCOPES], [tt.facilityIds[0]]);
    const otherClinicDoc = await insertDocument(server, other, await insertPatient(server, other));
    const cases: Array<[string, string, string]> = [
      ['an id that exists nowhere', randomUUID(), 'signed_document_not_found'],
      ['another clinic’s document', otherClinicDoc, 'signed_document_not_found'],
      ['a document of a facility the key cannot see', await insertDocument(server, tt, p, { facilityId: tt.facilityIds[1] }), 'signed_document_not_found'],
      ['another patient’s document', await insertDocument(server, tt, p2), 'signed_document_mismatch'],
      ['a document of another quote', await insertDocument(server, tt, p, { category: 'quote', quoteId: elsewhereQuote }), 'signed_document_mismatch'],
      ['a document not yet scanned', await insertDocument(server, tt, p, { status: 'pending_scan' }), 'signed_document_not_available'],
      ['a rejected document', await insertDocument(server, tt, p, { status: 'rejected' }), 'signed_document_not_available'],
      ['an x-ray', await insertDocument(server, tt, p, { category: 'xray' }), 'signed_document_not_signature'],
    ];
    for (const [what, signedDocumentId, reason] of cases) {
      const res = await post(limited.token, `/v1/treatment-plans/${q}/accept`, { channel: 'portal', signedDocumentId });
      expect(res.status, what).toBe(409);
      expect(res.body.error.details, what).toMatchObject({ reason, field: 'signedDocumentId' });
    }
    // Unseen and absent are one answer.
    const absent = await post(limited.token, `/v1/treatment-plans/${q}/accept`, { channel: 'portal', signedDocumentId: cases[0]![1] });
    const unseen = await post(limited.token, `/v1/treatment-plans/${q}/accept`, { channel: 'portal', signedDocumentId: cases[2]![1] });
    expect(answer(unseen)).toEqual(answer(absent));
    // The back office's decision follows the same rule.
    const desk = await admin(tt, `/treatment-plans/${q}/status`, { status: 'accepted', signedDocumentId: cases[3]![1] });
    expect(desk.status).toBe(409);
    expect(desk.body.error.details.reason).toBe('signed_document_mismatch');
    const still = await server.call('GET', `/v1/treatment-plans/${q}`, { token: tt.token });
    expect(still.body.status).toBe('presented');

    const good = await insertDocument(server, tt, p, { category: 'consent' });
    const accepted = await post(limited.token, `/v1/treatment-plans/${q}/accept`, { channel: 'portal', signedDocumentId: good.toUpperCase() });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.acceptance).toMatchObject({ channel: 'portal', signedDocumentId: good });
  });
});

describe('money that would not fit its column', () => {
  // 10 × 1000 × 100,000,000 = 1,000,000,000,000 euro: one cent over numeric(14, 2).
  const huge = Array.from({ length: 10 }, (_, n) => ({ description: `Voce ${n}`, quantity: 1000, unitAmount: 100_000_000 }));

  it('refuses quote items whose subtotal overflows, naming items, on create, PATCH and the back office; 9 such items fit', async () => {
    const tt = await server.factories.tenant();
    const p = await insertPatient(server, tt);
    const before = await count('treatment_plans', tt.clinicId);
    const create = await post(tt.token, '/v1/treatment-plans', { patientId: p, items: huge });
    expect(create.status, create.text).toBe(400);
    expect(paths(create)).toEqual(['items']);
    const desk = await admin(tt, '/treatment-plans', { patientId: p, items: huge });
    expect(desk.status, desk.text).toBe(400);
    expect(paths(desk)).toEqual(['items']);
    expect(await count('treatment_plans', tt.clinicId)).toBe(before);

    const fits = await post(tt.token, '/v1/treatment-plans', { patientId: p, items: huge.slice(1) });
    expect(fits.status, fits.text).toBe(201);
    expect(fits.body.totalAmount).toBe(900_000_000_000);
    const patch = await server.call('PATCH', `/v1/treatment-plans/${fits.body.id}`, { token: tt.token, body: { items: huge } });
    expect(patch.status, patch.text).toBe(400);
    expect(paths(patch)).toEqual(['items']);
  });

  it('refuses invoice lines whose totals overflow, and a payment plan whose installments would, naming the list', async () => {
    const tt = await server.factories.tenant();
    const p = await insertPatient(server, tt);
    const lines = huge.map((l) => ({ ...l, vatRate: 22 }));
    const inv = await admin(tt, '/invoices', { patientId: p, number: 'F-1', lines });
    expect(inv.status, inv.text).toBe(400);
    expect(paths(inv)).toEqual(['lines']);
    // Nets that fit, with VAT that does not: 9 × 100,000,000,000 + 22 %.
    const taxed = await admin(tt, '/invoices', { patientId: p, number: 'F-2', lines: lines.slice(1) });
    expect(taxed.status, taxed.text).toBe(400);
    expect(paths(taxed)).toEqual(['lines']);
    expect(await count('invoices', tt.clinicId)).toBe(0);
    const plan = await admin(tt, '/payment-plans', { patientId: p, installments: [{ amount: 100_000_000.001, dueDate: '2030-01-01' }] });
    expect(plan.status).toBe(400);
    expect(paths(plan)).toEqual(['installments.0.amount']);
  });
});

describe('references across facilities and patients', () => {
  it('refuses another facility’s doctor to a limited key, with the same answer as an unknown doctor', async () => {
    const tt = await server.factories.tenant();
    const p = await insertPatient(server, tt);
    const nord = await createDoctor(server.ctx.db, tt.clinicId, { firstName: 'Anna', lastName: 'Nord', facilityId: tt.facilityIds[1] });
    const limited = await server.factories.key(tt.clinicId, [...SCOPES], [tt.facilityIds[0]]);
    const items = [{ description: 'Visita', unitAmount: 50 }];
    const unseen = await post(limited.token, '/v1/treatment-plans', { patientId: p, doctorId: nord.id, items });
    const absent = await post(limited.token, '/v1/treatment-plans', { patientId: p, doctorId: randomUUID(), items });
    expect(unseen.status).toBe(400);
    expect(paths(unseen)).toEqual(['doctorId']);
    expect(answer(unseen)).toEqual(answer(absent));
    // The doctor of its own facility, and any doctor for an unrestricted key.
    expect((await post(limited.token, '/v1/treatment-plans', { patientId: p, doctorId: tt.doctorId, items })).status).toBe(201);
    expect((await post(tt.token, '/v1/treatment-plans', { patientId: p, doctorId: nord.id, items })).status).toBe(201);
  });

  it('links a quote item, a payment plan and an appointment only to records of the same patient', async () => {
    const tt = await server.factories.tenant();
    const p = await insertPatient(server, tt);
    const p2 = await insertPatient(server, tt);
    const start = new Date(Date.now() + 86_400_000);
    const appt = await admin(tt, '/appointments', { patientId: p2, start: start.toISOString(), end: new Date(start.getTime() + 1_800_000).toISOString() });
    expect(appt.status, appt.text).toBe(201);
    const item = { description: 'Otturazione', unitAmount: 90, appointmentId: appt.body.id };
    const create = await post(tt.token, '/v1/treatment-plans', { patientId: p, items: [item] });
    expect(create.status).toBe(400);
    expect(paths(create)).toEqual(['items.0.appointmentId']);
    const own = await post(tt.token, '/v1/treatment-plans', { patientId: p2, items: [item] });
    expect(own.status, own.text).toBe(201);
    const mine = await post(tt.token, '/v1/treatment-plans', { patientId: p, items: [{ description: 'Visita', unitAmount: 50 }] });
    const patch = await server.call('PATCH', `/v1/treatment-plans/${mine.body.id}`, { token: tt.token, body: { items: [item] } });
    expect(patch.status).toBe(400);
    expect(paths(patch)).toEqual(['items.0.appointmentId']);
    // p2's quote named for p: a payment plan, a back-office appointment, an invoice.
    const plan = await admin(tt, '/payment-plans', { patientId: p, treatmentPlanId: own.body.id, installments: [{ amount: 10, dueDate: '2030-01-01' }] });
    expect(plan.status).toBe(400);
    expect(paths(plan)).toEqual(['treatmentPlanId']);
    const booked = await admin(tt, '/appointments', {
      patientId: p,
      treatmentPlanId: own.body.id,
      start: start.toISOString(),
      end: new Date(start.getTime() + 1_800_000).toISOString(),
    });
    expect(booked.status).toBe(400);
    expect(paths(booked)).toEqual(['treatmentPlanId']);
    const inv = await admin(tt, '/invoices', { patientId: p, number: 'F-9', treatmentPlanId: own.body.id, totalAmount: 10 });
    expect(inv.status).toBe(400);
    expect(paths(inv)).toEqual(['treatmentPlanId']);
  });

  it('links a new document only to an appointment the key sees, with one answer for unseen and absent', async () => {
    const tt = await server.factories.tenant();
    const p = await insertPatient(server, tt, tt.facilityIds[0]);
    const start = new Date(Date.now() + 86_400_000);
    const times = { start: start.toISOString(), end: new Date(start.getTime() + 1_800_000).toISOString() };
    const nord = await admin(tt, '/appointments', { patientId: p, facilityId: tt.facilityIds[1], ...times });
    expect(nord.status, nord.text).toBe(201);
    const limited = await server.factories.key(tt.clinicId, [...SCOPES], [tt.facilityIds[0]]);
    const unseen = await post(limited.token, '/v1/documents', inline(p, pdf(100), { appointmentId: nord.body.id }));
    const absent = await post(limited.token, '/v1/documents', inline(p, pdf(100), { appointmentId: randomUUID() }));
    expect(unseen.status, unseen.text).toBe(400);
    expect(paths(unseen)).toEqual(['appointmentId']);
    expect(answer(unseen)).toEqual(answer(absent));
  });

  it('answers a payment reference used in a facility the key cannot see as reused, never 404, never naming that payment', async () => {
    const tt = await server.factories.tenant();
    const nord = await insertPatient(server, tt, tt.facilityIds[1]);
    const centro = await insertPatient(server, tt, tt.facilityIds[0]);
    const reference = `pi_${randomUUID()}`;
    expect((await admin(tt, '/invoices', { patientId: nord, number: 'F-N', totalAmount: 10 })).status).toBe(201);
    const first = await post(tt.token, '/v1/payments', { amount: 10, method: 'card', reference, patientId: nord });
    expect(first.status, first.text).toBe(201);
    expect((await admin(tt, '/invoices', { patientId: centro, number: 'F-C', totalAmount: 10 })).status).toBe(201);
    const limited = await server.factories.key(tt.clinicId, [...SCOPES], [tt.facilityIds[0]]);
    const before = await count('payments', tt.clinicId);
    const again = await post(limited.token, '/v1/payments', { amount: 10, method: 'card', reference, patientId: centro });
    expect(again.status, again.text).toBe(409);
    expect(again.body.error.details).toEqual({ reason: 'reference_reused' });
    expect(await count('payments', tt.clinicId)).toBe(before);
  });
});

describe('one 400 names every wrong field, the schema’s and the domain’s', () => {
  it('names a missing unitAmount and a tooth that is not FDI together, on /v1 and the back office', async () => {
    const p = await insertPatient(server, t);
    const body = {
      patientId: p,
      discount: 1.001,
      items: [
        { description: 'Senza prezzo', teeth: [36] },
        { description: 'Dente 19', teeth: [19, 21], unitAmount: 10.005 },
      ],
    };
    const expected = ['discount', 'items.0.unitAmount', 'items.1.teeth.0', 'items.1.unitAmount'];
    const v1 = await post(t.token, '/v1/treatment-plans', body);
    expect(v1.status).toBe(400);
    expect(paths(v1)).toEqual(expected);
    expect(paths(await admin(t, '/treatment-plans', body))).toEqual(expected);
    // A discount above its item, beside a field of the wrong type.
    const mixed = await post(t.token, '/v1/treatment-plans', { patientId: p, title: 7, items: [{ description: 'x', unitAmount: 10, discount: 11 }] });
    expect(paths(mixed)).toEqual(['items.0.discount', 'title']);
  });

  it('names the schema’s and the domain’s fields of invoices, payments and payment plans', async () => {
    const p = await insertPatient(server, t);
    const inv = await admin(t, '/invoices', { patientId: p, number: '', lines: [{ description: 'x', unitAmount: 1.111, vatRate: 10.555 }], totalAmount: 5 });
    expect(paths(inv)).toEqual(['lines.0.unitAmount', 'lines.0.vatRate', 'number', 'totalAmount']);
    const pay = await post(t.token, '/v1/payments', { amount: 1.234, method: 'cheque', reference: 'r-1' });
    expect(paths(pay)).toEqual(['amount', 'invoiceId', 'method']);
    const plan = await admin(t, '/payment-plans', { patientId: p, installments: [{ amount: 1.001 }, { amount: 2, dueDate: 'ieri' }] });
    expect(paths(plan)).toEqual(['installments.0.amount', 'installments.0.dueDate', 'installments.1.dueDate']);
  });

  it('refuses a body with fields on the cancellations, which take none', async () => {
    const p = await insertPatient(server, t);
    const q = await post(t.token, '/v1/treatment-plans', { patientId: p, items: [{ description: 'Visita', unitAmount: 50 }] });
    const cancelQuote = await post(t.token, `/v1/treatment-plans/${q.body.id}/cancel`, { reason: 'price', note: 'x' });
    expect(cancelQuote.status).toBe(400);
    expect(paths(cancelQuote)).toEqual(['note', 'reason']);
    const cancelAppt = await post(t.token, `/v1/appointments/${randomUUID()}/cancel`, { reason: 'malattia' });
    expect(cancelAppt.status).toBe(400);
    expect(paths(cancelAppt)).toEqual(['reason']);
    expect((await post(t.token, `/v1/appointments/${randomUUID()}/cancel`, [1])).status).toBe(400);
    // Nothing, or an empty object, is no body.
    expect((await post(t.token, `/v1/appointments/${randomUUID()}/cancel`, {})).status).toBe(404);
    expect((await post(t.token, `/v1/appointments/${randomUUID()}/cancel`)).status).toBe(404);
    expect((await post(t.token, `/v1/treatment-plans/${q.body.id}/cancel`, {})).status).toBe(200);
  });
});

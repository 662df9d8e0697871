import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
});
afterAll(() => server.close());

let n = 0;
const phone = () => `348 ${String(3000000 + ++n).padStart(7, '0')}`;
const post = (body: unknown, token = t.token) => server.call('POST', '/v1/leads', { token, body });
const count = async (table: 'leads' | 'events', clinicId: string, type?: string) => {
  let q = server.ctx.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('c'))
    .where('clinic_id', '=', clinicId);
  if (type) q = q.where('type' as never, '=', type as never);
  return Number((await q.executeTakeFirstOrThrow()).c);
};

const LEAD_KEYS = [
  'id',
  'facilityId',
  'firstName',
  'lastName',
  'email',
  'phone',
  'source',
  'sourceDetail',
  'status',
  'assignedTo',
  'estimatedValue',
  'notes',
  'nextFollowUpAt',
  'lastContactedAt',
  'lostReason',
  'convertedPatientId',
  'convertedAt',
  'createdAt',
  'updatedAt',
  'deduplicated',
];

describe('POST /v1/leads', () => {
  it('creates a lead (201, lead.created) with exactly the documented fields', async () => {
    const res = await post({
      firstName: 'Sara',
      lastName: 'Galli',
      email: 'sara@example.com',
      phone: '348 111 2222',
      source: 'website',
      sourceDetail: 'form',
      status: 'contacted',
      notes: 'chiede preventivo',
      assignedTo: t.staffId,
      estimatedValue: 1500.5,
      nextFollowUpAt: '2026-12-01T10:00+01:00',
      facilityId: t.facilityIds[0],
    });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...LEAD_KEYS].sort());
    expect(res.body).toMatchObject({
      phone: '+393481112222',
      status: 'contacted',
      estimatedValue: 1500.5,
      nextFollowUpAt: '2026-12-01T09:00:00.000Z',
      deduplicated: false,
      assignedTo: t.staffId,
    });
    const events = await server.ctx.db.selectFrom('events').selectAll().where('clinic_id', '=', t.clinicId).where('type', '=', 'lead.created').execute();
    expect(events.some((e) => e.data.id === res.body.id)).toBe(true);
  });

  it('deduplicates by phone in any format or email in any case: 200, nothing modified', async () => {
    const first = await post({ firstName: 'Dedup', phone: '+39 348 999 0001', email: 'dedup@example.com', notes: 'originale' });
    expect(first.status).toBe(201);
    const before = await count('leads', t.clinicId);
    const byPhone = await post({ firstName: 'Altro', phone: '0039348-9990001', notes: 'nuovo' });
    expect(byPhone.status).toBe(200);
    expect(byPhone.body).toEqual({ ...first.body, deduplicated: true });
    const byEmail = await post({ firstName: 'Altro', email: 'DEDUP@example.com' });
    expect(byEmail.status).toBe(200);
    expect(byEmail.body.id).toBe(first.body.id);
    expect(await count('leads', t.clinicId)).toBe(before);
    const detail = await server.call('GET', `/v1/leads/${first.body.id}`, { token: t.token });
    expect(detail.body.notes).toBe('originale');
  });

  it('ends concurrent creations of one phone in one lead', async () => {
    const tenant = await server.factories.tenant();
    const p = phone();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => post({ firstName: `C${i}`, phone: p }, tenant.token)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(19);
    expect(await count('leads', tenant.clinicId)).toBe(1);
    expect(await count('events', tenant.clinicId, 'lead.created')).toBe(1);
  });

  it('accepts every bound at its edge and refuses one past it, naming every field', async () => {
    const ok = await post({
      firstName: 'f'.repeat(100),
      lastName: 'l'.repeat(100),
      email: `${'e'.repeat(242)}@example.com`,
      phone: ` ${phone()} `.padEnd(40, ' '),
      sourceDetail: 's'.repeat(200),
      notes: 'n'.repeat(5000),
      estimatedValue: 100000000,
      source: 'chat',
    });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.email.length).toBe(254);
    expect((await post({ firstName: 'Zero', estimatedValue: 0, lastName: '' })).status).toBe(201);
    const bad = await post({
      firstName: '',
      lastName: 'l'.repeat(101),
      email: `${'e'.repeat(243)}@example.com`,
      phone: '1'.repeat(41),
      source: 'tv',
      sourceDetail: 's'.repeat(201),
      status: 'open',
      notes: 'n'.repeat(5001),
      assignedTo: 'x',
      estimatedValue: 100000000.01,
      nextFollowUpAt: '2026-02-30T10:00Z',
      facilityId: 'y',
    });
    expect(bad.status).toBe(400);
    const paths = new Set(bad.body.error.details.issues.map((i: { path: string }) => i.path));
    for (const f of [
      'firstName',
      'lastName',
      'email',
      'phone',
      'source',
      'sourceDetail',
      'status',
      'notes',
      'assignedTo',
      'estimatedValue',
      'nextFollowUpAt',
      'facilityId',
    ])
      expect(paths.has(f), f).toBe(true);
    expect((await post({ firstName: 'Neg', estimatedValue: -0.01 })).status).toBe(400);
    expect((await post({ firstName: 'f'.repeat(101) })).status).toBe(400);
    expect((await post({ firstName: 'f', estimatedValue: '12' })).status).toBe(400);
    expect((await post({ firstName: 'Short', phone: '12' })).status).toBe(400);
    const unknownStaff = await post({ firstName: 'Staff', assignedTo: t.facilityIds[0] });
    expect(unknownStaff.status).toBe(400);
    expect(unknownStaff.body.error.details.issues[0].path).toBe('assignedTo');
  });

  it('applies the facilityId rule and hides leads of unseen facilities', async () => {
    const limited = await server.factories.key(t.clinicId, ['leads:write', 'leads:read'], [t.facilityIds[1]]);
    const missing = await post({ firstName: 'F' }, limited.token);
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.issues[0].path).toBe('facilityId');
    expect((await post({ firstName: 'F', facilityId: t.facilityIds[0] }, limited.token)).status).toBe(400);
    const elsewhere = await post({ firstName: 'G', phone: phone(), facilityId: t.facilityIds[0] });
    expect((await server.call('GET', `/v1/leads/${elsewhere.body.id}`, { token: limited.token })).status).toBe(404);
    // The same phone from a key that cannot see that lead: a lead of its own, nothing of the other is told.
    const same = await post({ firstName: 'G', phone: elsewhere.body.phone, email: null, facilityId: t.facilityIds[1] }, limited.token);
    expect(same.status, same.text).toBe(201);
    expect(same.body.id).not.toBe(elsewhere.body.id);
    expect(same.text).not.toContain(elsewhere.body.id);
  });
});

describe('lead back office', () => {
  it('changes status, adds activities, converts into a patient with lead.converted', async () => {
    const lead = await post({ firstName: 'Conv', lastName: 'Ertito', phone: phone(), email: `conv${++n}@example.com`, facilityId: t.facilityIds[0] });
    const base = `/admin/v1/clinics/${t.clinicId}/leads/${lead.body.id}`;
    const etag = (await server.call('GET', `/v1/leads/${lead.body.id}`, { token: t.token })).headers.get('etag')!;
    const stale = await server.call('PATCH', base, { token: 'test-admin-token-0123456789', body: { status: 'qualified' }, headers: { 'if-match': '"99"' } });
    expect(stale.status).toBe(409);
    expect(stale.body.error.details.reason).toBe('version_mismatch');
    const upd = await server.call('PATCH', base, {
      token: 'test-admin-token-0123456789',
      body: { status: 'qualified', assignedTo: t.staffId },
      headers: { 'if-match': etag },
    });
    expect(upd.status, upd.text).toBe(200);
    expect(upd.body.status).toBe('qualified');
    const act = await server.admin('POST', `${base}/activities`, { kind: 'email', body: 'inviato preventivo', at: '2026-01-10T10:00:00Z' });
    expect(act.status).toBe(201);
    const badKind = await server.admin('POST', `${base}/activities`, { kind: 'fax', body: '' });
    expect(badKind.status).toBe(400);
    expect(badKind.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['body', 'kind']);

    const conv = await server.admin('POST', `${base}/convert`, {});
    expect(conv.status, conv.text).toBe(200);
    expect(conv.body.patientCreated).toBe(true);
    expect(conv.body.lead.status).toBe('won');
    expect(conv.body.lead.convertedAt).toBeTruthy();
    const patientId = conv.body.lead.convertedPatientId;
    const patient = await server.call('GET', `/v1/patients/${patientId}`, { token: t.token });
    expect(patient.body).toMatchObject({ firstName: 'Conv', lastName: 'Ertito', phone: lead.body.phone, facilityId: t.facilityIds[0] });
    const events = await server.ctx.db.selectFrom('events').selectAll().where('clinic_id', '=', t.clinicId).where('type', '=', 'lead.converted').execute();
    expect(events.find((e) => e.data.id === lead.body.id)!.data.patientId).toBe(patientId);
    expect((await server.admin('POST', `${base}/convert`, {})).body.error.details.reason).toBe('already_converted');

    const detail = await server.call('GET', `/v1/leads/${lead.body.id}`, { token: t.token });
    expect(detail.body.activities.map((a: { kind: string }) => a.kind)).toEqual(['email', 'status_change']);
    expect(detail.body.lastContactedAt).toBe('2026-01-10T10:00:00.000Z');
    expect(Object.keys(detail.body.activities[0]).sort()).toEqual(['at', 'body', 'id', 'kind']);
  });

  it('converts into an existing patient and refuses a lead without last name', async () => {
    const nameless = await post({ firstName: 'Solo', phone: phone() });
    const res = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/leads/${nameless.body.id}/convert`, {});
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues[0].path).toBe('lastName');
    const p = await server.call('POST', '/v1/patients', { token: t.token, body: { firstName: 'Esiste', lastName: 'Già' } });
    const linked = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/leads/${nameless.body.id}/convert`, { patientId: p.body.id });
    expect(linked.status).toBe(200);
    expect(linked.body).toMatchObject({ patientCreated: false, lead: { convertedPatientId: p.body.id } });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClientError } from '../../../packages/client/src/index.js';
import { refused } from '../../helpers/refused.js';
import type { operations } from '../../../packages/client/src/schema.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
});
afterAll(() => server.close());

let n = 0;
const phone = () => `348 ${String(3000000 + ++n).padStart(7, '0')}`;
type NewLead = operations['createLead']['requestBody']['content']['application/json'];
/** A typed creation (the project's client, generated OpenAPI types): throws ApiClientError on a refusal. */
const create = (body: NewLead, token = t.token) => server.api(token).callWithResponse('createLead', { body });
/** Raw: only for bodies outside the typed contract. */
const post = (body: unknown, token = t.token) => server.call('POST', '/v1/leads', { token, body });
const getLead = (id: string, token = t.token) => server.api(token).callWithResponse('getLead', { params: { path: { id } } });
const firstIssue = (error: ApiClientError) => (error.details?.issues as { path: string }[])[0]!.path;
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
    const res = await create({
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
    expect(res.response.status).toBe(201);
    expect(Object.keys(res.data).sort()).toEqual([...LEAD_KEYS].sort());
    expect(res.data).toMatchObject({
      phone: '+393481112222',
      status: 'contacted',
      estimatedValue: 1500.5,
      nextFollowUpAt: '2026-12-01T09:00:00.000Z',
      deduplicated: false,
      assignedTo: t.staffId,
    });
    const events = await server.ctx.db.selectFrom('events').selectAll().where('clinic_id', '=', t.clinicId).where('type', '=', 'lead.created').execute();
    expect(events.some((e) => e.data.id === res.data.id)).toBe(true);
  });

  it('deduplicates by phone in any format or email in any case: 200, nothing modified', async () => {
    const first = await create({ firstName: 'Dedup', phone: '+39 348 999 0001', email: 'dedup@example.com', notes: 'originale' });
    expect(first.response.status).toBe(201);
    const before = await count('leads', t.clinicId);
    const byPhone = await create({ firstName: 'Altro', phone: '0039348-9990001', notes: 'nuovo' });
    expect(byPhone.response.status).toBe(200);
    expect(byPhone.data).toEqual({ ...first.data, deduplicated: true });
    const byEmail = await create({ firstName: 'Altro', email: 'DEDUP@example.com' });
    expect(byEmail.response.status).toBe(200);
    expect(byEmail.data.id).toBe(first.data.id);
    expect(await count('leads', t.clinicId)).toBe(before);
    const detail = await getLead(first.data.id);
    expect(detail.data.notes).toBe('originale');
  });

  it('ends concurrent creations of one phone in one lead', async () => {
    const tenant = await server.factories.tenant();
    const p = phone();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => create({ firstName: `C${i}`, phone: p }, tenant.token)));
    expect(results.filter((r) => r.response.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.response.status === 200)).toHaveLength(19);
    expect(await count('leads', tenant.clinicId)).toBe(1);
    expect(await count('events', tenant.clinicId, 'lead.created')).toBe(1);
  });

  it('accepts every bound at its edge and refuses one past it, naming every field', async () => {
    const ok = await create({
      firstName: 'f'.repeat(100),
      lastName: 'l'.repeat(100),
      email: `${'e'.repeat(242)}@example.com`,
      phone: ` ${phone()} `.padEnd(40, ' '),
      sourceDetail: 's'.repeat(200),
      notes: 'n'.repeat(5000),
      estimatedValue: 100000000,
      source: 'chat',
    });
    expect(ok.response.status).toBe(201);
    expect(ok.data.email!.length).toBe(254);
    expect((await create({ firstName: 'Zero', estimatedValue: 0, lastName: '' })).response.status).toBe(201);
    // Outside the typed contract (a source and a status not in the lists): raw.
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
    expect((await refused(create({ firstName: 'Neg', estimatedValue: -0.01 }))).status).toBe(400);
    expect((await refused(create({ firstName: 'f'.repeat(101) }))).status).toBe(400);
    // A number sent as a string: raw.
    expect((await post({ firstName: 'f', estimatedValue: '12' })).status).toBe(400);
    expect((await refused(create({ firstName: 'Short', phone: '12' }))).status).toBe(400);
    const unknownStaff = await refused(create({ firstName: 'Staff', assignedTo: t.facilityIds[0] }));
    expect(unknownStaff.status).toBe(400);
    expect(firstIssue(unknownStaff)).toBe('assignedTo');
  });

  it('applies the facilityId rule and hides leads of unseen facilities', async () => {
    const limited = await server.factories.key(t.clinicId, ['leads:write', 'leads:read'], [t.facilityIds[1]]);
    const missing = await refused(create({ firstName: 'F' }, limited.token));
    expect(missing.status).toBe(400);
    expect(firstIssue(missing)).toBe('facilityId');
    expect((await refused(create({ firstName: 'F', facilityId: t.facilityIds[0] }, limited.token))).status).toBe(400);
    const elsewhere = (await create({ firstName: 'G', phone: phone(), facilityId: t.facilityIds[0] })).data;
    expect((await refused(getLead(elsewhere.id, limited.token))).status).toBe(404);
    // The same phone from a key that cannot see that lead: a lead of its own, nothing of the other is told.
    const same = await create({ firstName: 'G', phone: elsewhere.phone, email: null, facilityId: t.facilityIds[1] }, limited.token);
    expect(same.response.status).toBe(201);
    expect(same.data.id).not.toBe(elsewhere.id);
    expect(JSON.stringify(same.data)).not.toContain(elsewhere.id);
  });
});

describe('lead back office', () => {
  it('changes status, adds activities, converts into a patient with lead.converted', async () => {
    const lead = (await create({ firstName: 'Conv', lastName: 'Ertito', phone: phone(), email: `conv${++n}@example.com`, facilityId: t.facilityIds[0] })).data;
    const base = `/admin/v1/clinics/${t.clinicId}/leads/${lead.id}`;
    const etag = (await getLead(lead.id)).response.headers.get('etag')!;
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
    const patient = await server.api(t.token).call('getPatient', { params: { path: { id: patientId } } });
    expect(patient).toMatchObject({ firstName: 'Conv', lastName: 'Ertito', phone: lead.phone, facilityId: t.facilityIds[0] });
    const events = await server.ctx.db.selectFrom('events').selectAll().where('clinic_id', '=', t.clinicId).where('type', '=', 'lead.converted').execute();
    expect(events.find((e) => e.data.id === lead.id)!.data.patientId).toBe(patientId);
    expect((await server.admin('POST', `${base}/convert`, {})).body.error.details.reason).toBe('already_converted');

    const detail = (await getLead(lead.id)).data;
    expect(detail.activities.map((a) => a.kind)).toEqual(['email', 'status_change']);
    expect(detail.lastContactedAt).toBe('2026-01-10T10:00:00.000Z');
    expect(Object.keys(detail.activities[0]!).sort()).toEqual(['at', 'body', 'id', 'kind']);
  });

  it('converts into an existing patient and refuses a lead without last name', async () => {
    const nameless = (await create({ firstName: 'Solo', phone: phone() })).data;
    const res = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/leads/${nameless.id}/convert`, {});
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues[0].path).toBe('lastName');
    const p = await server.api(t.token).call('createPatient', { body: { firstName: 'Esiste', lastName: 'Già' } });
    const linked = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/leads/${nameless.id}/convert`, { patientId: p.id });
    expect(linked.status).toBe(200);
    expect(linked.body).toMatchObject({ patientCreated: false, lead: { convertedPatientId: p.id } });
  });
});

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClientError } from '../../../packages/client/src/index.js';
import { refused } from '../../helpers/refused.js';
import type { operations } from '../../../packages/client/src/schema.js';
import type { Tenant } from '../../helpers/factories.js';
import { ENGINE, startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
});
afterAll(() => server.close());

let n = 0;
const unique = () => ++n;
type NewPatient = operations['createPatient']['requestBody']['content']['application/json'];
/** A typed creation (the project's client, generated OpenAPI types): throws ApiClientError on a refusal. */
const create = (body: NewPatient, token = t.token, headers: Record<string, string> = {}) =>
  server.api(token).callWithResponse('createPatient', { body, headers });
/** A typed creation that does not throw (`{ data, error, response }`): for parallel creations whose answers differ. */
const attempt = (body: NewPatient, token = t.token) => server.api(token).raw.POST('/patients', { body });
/** Raw: only for bodies outside the typed contract. */
const post = (body: unknown, token = t.token) => server.call('POST', '/v1/patients', { token, body });
const getPatient = (id: string, token = t.token) => server.api(token).callWithResponse('getPatient', { params: { path: { id } } });
const issues = (error: ApiClientError) => error.details?.issues as { path: string }[];
const phone = () => `333 ${String(1000000 + unique()).padStart(7, '0')}`;
const eventsOf = (clinicId: string, type: string) =>
  server.ctx.db.selectFrom('events').selectAll().where('clinic_id', '=', clinicId).where('type', '=', type).execute();
const countPatients = async (clinicId: string) =>
  Number(
    (
      await server.ctx.db
        .selectFrom('patients')
        .select((eb) => eb.fn.countAll().as('c'))
        .where('clinic_id', '=', clinicId)
        .executeTakeFirstOrThrow()
    ).c,
  );

describe('POST /v1/patients', () => {
  it('creates a patient with canonical phone, ETag, clinical fields and patient.created', async () => {
    const res = await create({
      firstName: 'Mario',
      lastName: 'Rossi',
      phone: '333 123 4567',
      email: 'Mario.Rossi@Example.com',
      dateOfBirth: '1980-02-29',
      gender: 'male',
      taxCode: 'RSSMRA80B29F205X',
      address: { street: 'Via Roma 1', city: 'Milano', zip: '20100', country: 'IT' },
      facilityId: t.facilityIds[0],
      referralSource: 'internet',
      allergies: ['penicillina'],
      notes: 'ok',
    });
    expect(res.response.status).toBe(201);
    expect(res.response.headers.get('etag')).toBe('"1"');
    expect(res.data).toMatchObject({
      firstName: 'Mario',
      phone: '+393331234567',
      isActive: true,
      archivedAt: null,
      allergies: ['penicillina'],
      notes: 'ok',
      medications: null,
    });
    expect(Object.keys(res.data).sort()).toEqual(
      [
        'id',
        'firstName',
        'lastName',
        'email',
        'phone',
        'dateOfBirth',
        'gender',
        'taxCode',
        'address',
        'facilityId',
        'referralSource',
        'isActive',
        'archivedAt',
        'createdAt',
        'updatedAt',
        'allergies',
        'medications',
        'conditions',
        'notes',
      ].sort(),
    );
    const events = await eventsOf(t.clinicId, 'patient.created');
    const ev = events.find((e) => e.data.id === res.data.id)!;
    expect(ev).toBeTruthy();
    expect(JSON.stringify(ev.data)).not.toContain('penicillina');

    const got = await getPatient(res.data.id.toUpperCase());
    expect(got.response.status).toBe(200);
    expect(got.response.headers.get('etag')).toBe('"1"');
    expect(got.data).toEqual(res.data);
  });

  it('accepts phones in every format and stores the same E.164', async () => {
    for (const [input, expected] of [
      ['+39 06 1234 5678', '+390612345678'],
      ['0039 347-765.4321', '+393477654321'],
      ['(02) 8765 4321', '+390287654321'],
    ]) {
      const res = await create({ firstName: `Tel${unique()}`, lastName: 'Prova', phone: input });
      expect(res.response.status).toBe(201);
      expect(res.data.phone).toBe(expected);
    }
  });

  it('accepts every bound at its edge and refuses one past it, naming every field', async () => {
    const ok = await create({
      firstName: 'a'.repeat(100),
      lastName: 'b',
      email: `${'x'.repeat(188)}@example.com`,
      phone: '+39 333 12 34 567 ' + ' '.repeat(12),
      taxCode: 'T'.repeat(32),
      allergies: Array.from({ length: 100 }, () => 'y'.repeat(200)),
      medications: [],
      notes: 'n'.repeat(5000),
    });
    expect(ok.response.status).toBe(201);
    expect(ok.data.email!.length).toBe(200);
    const ok2 = await create({
      firstName: 'a',
      lastName: 'b'.repeat(100),
      taxCode: 'T',
      medications: Array.from({ length: 100 }, () => 'm'),
      conditions: ['c'.repeat(200)],
      notes: '',
    });
    expect(ok2.response.status).toBe(201);
    expect(ok2.data.medications).toHaveLength(100);
    // Outside the typed contract (wrong types, an unknown field): raw.
    const bad = await post({
      firstName: '',
      lastName: 'b'.repeat(101),
      email: `${'x'.repeat(189)}@example.com`,
      phone: '12',
      dateOfBirth: '2023-02-29',
      gender: 'x',
      taxCode: 'T'.repeat(33),
      address: { street: 1 },
      facilityId: 'nope',
      referralSource: 'tv',
      allergies: Array.from({ length: 101 }, () => 'a'),
      medications: [''],
      conditions: ['c'.repeat(201)],
      notes: 'n'.repeat(5001),
      extra: 1,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    expect(bad.body.error.details.in).toBe('body');
    const paths = new Set(bad.body.error.details.issues.map((i: { path: string }) => i.path.split('.')[0]));
    for (const f of [
      'firstName',
      'lastName',
      'email',
      'phone',
      'dateOfBirth',
      'gender',
      'taxCode',
      'address',
      'facilityId',
      'referralSource',
      'allergies',
      'medications',
      'conditions',
      'notes',
      'extra',
    ]) {
      expect(paths.has(f), f).toBe(true);
    }
    const longPhone = await refused(create({ firstName: 'P', lastName: 'Q', phone: '3'.repeat(31) }));
    expect(longPhone.status).toBe(400);
    const notPhone = await refused(create({ firstName: 'P', lastName: 'Q', phone: '123' }));
    expect(notPhone.status).toBe(400);
    expect(issues(notPhone)[0]!.path).toBe('phone');
    for (const email of ['.a@example.com', 'a..b@example.com', 'a@example.c', 'a@example']) {
      const res = await refused(create({ firstName: 'E', lastName: 'M', email }));
      expect(res.status, email).toBe(400);
    }
  });

  it('requires clinical:write for clinical fields and shows them only with clinical:read', async () => {
    const writer = await server.factories.key(t.clinicId, ['patients:write', 'patients:read']);
    for (const field of [{ allergies: ['x'] }, { medications: [] }, { conditions: ['c'] }, { notes: 'n' }]) {
      const res = await refused(create({ firstName: 'C', lastName: `L${unique()}`, ...field }, writer.token));
      expect(res.status).toBe(403);
      expect(res.code).toBe('insufficient_scope');
      expect(res.details?.requiredScopes).toEqual(['clinical:write']);
    }
    const res = await create({ firstName: 'C', lastName: `L${unique()}` }, writer.token);
    expect(res.response.status).toBe(201);
    expect(res.data).not.toHaveProperty('allergies');
    expect(res.data).not.toHaveProperty('notes');
    const full = (await create({ firstName: 'C', lastName: `L${unique()}`, notes: 'segreto' })).data;
    const read = await getPatient(full.id, writer.token);
    expect(read.data).not.toHaveProperty('notes');
    const logOf = async () =>
      (await server.ctx.db.selectFrom('access_log_entries').selectAll().where('clinic_id', '=', t.clinicId).execute()).filter((r) =>
        r.resource_ids.includes(full.id),
      );
    expect(await logOf()).toHaveLength(0);
    const clinical = await getPatient(full.id);
    expect(clinical.data.notes).toBe('segreto');
    const log = await logOf();
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      resource_type: 'patient',
      fields: ['allergies', 'medications', 'conditions', 'notes'],
      request_id: clinical.response.headers.get('x-request-id'),
    });
  });

  it('refuses a duplicate by name without case/accents/spaces and same phone or email', async () => {
    const p = phone();
    const first = await create({ firstName: 'Nicolò', lastName: "D'Amico", phone: p });
    expect(first.response.status).toBe(201);
    const dup = await refused(create({ firstName: '  nicolo ', lastName: 'd’amico', phone: `+39${p.replace(/ /g, '')}` }));
    expect(dup.status).toBe(409);
    expect(dup.details).toEqual({ reason: 'duplicate_patient', patientId: first.data.id });
    // The refused duplicate's statement had recorded its event: the rollback took it back, so
    // every patient.created names a patient that exists.
    const patients = new Set((await server.ctx.db.selectFrom('patients').select('id').where('clinic_id', '=', t.clinicId).execute()).map((r) => r.id));
    expect((await eventsOf(t.clinicId, 'patient.created')).filter((e) => !patients.has(e.data.id as string))).toEqual([]);
    const e = `dup${unique()}@example.com`;
    const a = await create({ firstName: 'Anna', lastName: 'Verdi', email: e });
    const b = await refused(create({ firstName: 'ANNA', lastName: 'Verdi', email: e.toUpperCase() }));
    expect(b.status).toBe(409);
    expect(b.details?.patientId).toBe(a.data.id);
    // Same phone, another name: another person.
    expect((await create({ firstName: 'Giulia', lastName: "D'Amico", phone: p })).response.status).toBe(201);
  });

  it('keeps the duplicate rule clinic-wide, but names the patient only to a key that sees it', async () => {
    const p = phone();
    const inSecond = await create({ firstName: 'Elena', lastName: 'Ferri', phone: p, facilityId: t.facilityIds[1] });
    expect(inSecond.response.status).toBe(201);
    const onlyFirst = await server.factories.key(t.clinicId, ['patients:read', 'patients:write'], [t.facilityIds[0]]);
    // Not throwing: the whole error body is searched for the id.
    const blind = await attempt({ firstName: 'Elena', lastName: 'Ferri', phone: p, facilityId: t.facilityIds[0] }, onlyFirst.token);
    expect(blind.response.status).toBe(409);
    expect(blind.error?.error.details).toEqual({ reason: 'duplicate_patient', patientId: null });
    expect(JSON.stringify(blind.error)).not.toContain(inSecond.data.id);
    const onlySecond = await server.factories.key(t.clinicId, ['patients:read', 'patients:write'], [t.facilityIds[1]]);
    const seeing = await refused(create({ firstName: 'Elena', lastName: 'Ferri', phone: p, facilityId: t.facilityIds[1] }, onlySecond.token));
    expect(seeing.details).toEqual({ reason: 'duplicate_patient', patientId: inSecond.data.id });
  });

  it('creates exactly one patient out of 50 parallel requests for one new person', async () => {
    const tenant = await server.factories.tenant();
    const body = { firstName: 'Parallelo', lastName: 'Unico', phone: phone(), email: `par${unique()}@example.com` };
    const results = await Promise.all(Array.from({ length: 50 }, () => attempt(body, tenant.token)));
    const statuses = results.map((r) => r.response.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    for (const r of results.filter((x) => x.response.status === 409))
      expect(['duplicate_patient', 'concurrent_request']).toContain(r.error?.error.details?.reason);
    expect(await countPatients(tenant.clinicId)).toBe(1);
    expect(await eventsOf(tenant.clinicId, 'patient.created')).toHaveLength(1);
  });

  it.runIf(ENGINE === 'postgres')('answers concurrent_request while another transaction creates the same phone', async () => {
    const tenant = await server.factories.tenant();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = server.ctx.db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${tenant.clinicId}:phone:+393339998877`}, 0))`.execute(trx);
      locked();
      await held;
    });
    await isLocked;
    const res = await attempt({ firstName: 'Con', lastName: 'Corrente', phone: '333 999 8877' }, tenant.token);
    release();
    await holder;
    expect(res.response.status).toBe(409);
    expect(res.error?.error.details).toEqual({ reason: 'concurrent_request' });
    expect(await countPatients(tenant.clinicId)).toBe(0);
    expect((await create({ firstName: 'Con', lastName: 'Corrente', phone: '333 999 8877' }, tenant.token)).response.status).toBe(201);
  });

  it('replays an Idempotency-Key retry without a second patient', async () => {
    const tenant = await server.factories.tenant();
    const body = { firstName: 'Idem', lastName: 'Potente' };
    // The test's own key on both calls (the client adds one only when none is given).
    const a = await create(body, tenant.token, { 'idempotency-key': 'k-1' });
    const b = await create(body, tenant.token, { 'idempotency-key': 'k-1' });
    expect(a.response.status).toBe(201);
    expect(b.response.status).toBe(201);
    expect(b.data.id).toBe(a.data.id);
    expect(await countPatients(tenant.clinicId)).toBe(1);
  });

  it('answers 403 plan_limit at the clinic patient limit', async () => {
    const tenant = await server.factories.tenant({ patientLimit: 2 });
    expect((await create({ firstName: 'A', lastName: 'Uno' }, tenant.token)).response.status).toBe(201);
    expect((await create({ firstName: 'B', lastName: 'Due' }, tenant.token)).response.status).toBe(201);
    const res = await refused(create({ firstName: 'C', lastName: 'Tre' }, tenant.token));
    expect(res.status).toBe(403);
    expect(res.code).toBe('forbidden');
    expect(res.reason).toBe('plan_limit');
    expect(await countPatients(tenant.clinicId)).toBe(2);
    // The refused creation's statement had recorded its event: the rollback took it back.
    expect(await eventsOf(tenant.clinicId, 'patient.created')).toHaveLength(2);
  });

  it('holds the patient limit under 50 parallel creations of different people', async () => {
    const tenant = await server.factories.tenant({ patientLimit: 10 });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        attempt({ firstName: 'Parallelo', lastName: `Numero ${i}`, phone: `+39 340 555 ${String(i).padStart(4, '0')}` }, tenant.token),
      ),
    );
    expect(results.filter((r) => r.response.status === 201)).toHaveLength(10);
    const others = results.filter((r) => r.response.status !== 201);
    expect(others.map((r) => [r.response.status, r.error?.error.details?.reason])).toEqual(others.map(() => [403, 'plan_limit']));
    expect(await countPatients(tenant.clinicId)).toBe(10);
    expect(await eventsOf(tenant.clinicId, 'patient.created')).toHaveLength(10);
  });

  it('applies the facilityId rule', async () => {
    const limited = await server.factories.key(t.clinicId, ['patients:write', 'patients:read'], [t.facilityIds[1]]);
    const missing = await refused(create({ firstName: 'F', lastName: 'Uno' }, limited.token));
    expect(missing.status).toBe(400);
    expect(issues(missing)[0]!.path).toBe('facilityId');
    const unseen = await refused(create({ firstName: 'F', lastName: 'Due', facilityId: t.facilityIds[0] }, limited.token));
    expect(unseen.status).toBe(400);
    const other = await server.factories.tenant();
    const foreign = await refused(create({ firstName: 'F', lastName: 'Tre', facilityId: other.facilityIds[0] }));
    expect(foreign.status).toBe(400);
    expect(issues(foreign)[0]!.path).toBe('facilityId');
    const ok = await create({ firstName: 'F', lastName: 'Quattro', facilityId: t.facilityIds[1] }, limited.token);
    expect(ok.response.status).toBe(201);
    // The limited key does not see a patient of another facility.
    const elsewhere = await create({ firstName: 'F', lastName: 'Cinque', facilityId: t.facilityIds[0] });
    expect((await refused(getPatient(elsewhere.data.id, limited.token))).status).toBe(404);
  });
});

describe('GET /v1/patients/lookup', () => {
  it('finds by a phone in any format, or answers found: false', async () => {
    const created = await create({ firstName: 'Lucia', lastName: 'Neri', phone: '+39 345 000 1111' });
    const lookup = (phone: string) => server.api(t.token).callWithResponse('lookupPatient', { params: { query: { phone } } });
    for (const q of ['3450001111', '+393450001111', '0039 345 000 1111', '345-000-1111']) {
      const res = await lookup(q);
      expect(res.response.status).toBe(200);
      expect(res.data).toEqual({ found: true, patient: { id: created.data.id, name: 'Lucia Neri' } });
    }
    const none = await lookup('3459999999');
    expect(none.data).toEqual({ found: false, patient: null });
    const bad = await refused(lookup('abc'));
    expect(bad.status).toBe(400);
    expect(issues(bad)[0]!.path).toBe('phone');
  });
});

describe('engine', () => {
  it('runs on ' + ENGINE, () => expect(ENGINE).toBeTruthy());
});

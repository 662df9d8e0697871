import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../../helpers/factories.js';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../../helpers/server.js';
import { makeCalendar } from '../../helpers/seed.js';

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
});
afterAll(() => server.close());

let n = 0;
const create = async (body: Record<string, unknown> = {}, token = t.token) =>
  (await server.call('POST', '/v1/patients', { token, body: { firstName: 'Ada', lastName: `Lovelace${++n}`, ...body } })).body;
const events = (clinicId: string, type: string) =>
  server.ctx.db.selectFrom('events').selectAll().where('clinic_id', '=', clinicId).where('type', '=', type).execute();
const admin = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  server.call(method, path, { token: ADMIN_TOKEN, body, headers });

describe('patient back office', () => {
  it('updates the sent fields with patient.updated listing changedFields, honouring If-Match', async () => {
    const p = await create({ phone: '333 765 4321' });
    const url = `/admin/v1/clinics/${t.clinicId}/patients/${p.id}`;
    const res = await admin(
      'PATCH',
      url,
      { lastName: 'Byron', phone: '+393337654321', email: 'ada@example.com', allergies: ['lattice'] },
      { 'if-match': '"1"' },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('etag')).toBe('"2"');
    expect(res.body).toMatchObject({ lastName: 'Byron', email: 'ada@example.com', allergies: ['lattice'] });
    const ev = (await events(t.clinicId, 'patient.updated')).find((e) => e.data.id === p.id)!;
    expect((ev.data.changedFields as string[]).sort()).toEqual(['allergies', 'email', 'lastName']);
    const stale = await admin('PATCH', url, { firstName: 'X' }, { 'if-match': '"1"' });
    expect(stale.status).toBe(409);
    expect(stale.body.error.details.reason).toBe('version_mismatch');
    const bad = await admin('PATCH', url, { firstName: '', phone: 'abc', gender: 'x' });
    expect(bad.status).toBe(400);
    // Search follows the new name.
    const hit = await server.call('GET', '/v1/patients/search?q=ada%20byron', { token: t.token });
    expect(hit.body.data[0].id).toBe(p.id);
  });

  it('archives (isActive false, archivedAt, patient.archived reason archived), once', async () => {
    const p = await create();
    const url = `/admin/v1/clinics/${t.clinicId}/patients/${p.id}/archive`;
    const res = await admin('POST', url);
    expect(res.status, res.text).toBe(200);
    expect(res.body.isActive).toBe(false);
    expect(res.body.archivedAt).toBeTruthy();
    const ev = (await events(t.clinicId, 'patient.archived')).find((e) => e.data.id === p.id)!;
    expect(ev.data.reason).toBe('archived');
    expect((await admin('POST', url)).body.error.details.reason).toBe('already_archived');
    expect((await admin('POST', `/admin/v1/clinics/${t.clinicId}/patients/${randomUUID()}/archive`)).status).toBe(404);
    const other = await server.factories.tenant();
    expect((await admin('POST', `/admin/v1/clinics/${other.clinicId}/patients/${p.id}/archive`)).status).toBe(404);
  });

  it('erases personal and clinical data for good, keeps the id, clears appointment, call, chat and outbound notes', async () => {
    const p = await create({
      phone: '333 000 9999',
      email: 'erase@example.com',
      taxCode: 'ERSDTA80A01F205X',
      notes: 'diabete',
      allergies: ['x'],
      dateOfBirth: '1980-01-01',
    });
    const appointmentId = randomUUID();
    await server.ctx.db
      .insertInto('appointments')
      .values({
        id: appointmentId,
        clinic_id: t.clinicId,
        patient_id: p.id,
        start_at: '2026-01-01T10:00:00Z',
        end_at: '2026-01-01T10:30:00Z',
        status: 'completed',
        origin: 'manual',
        title: 'Visita',
        reason: 'dolore',
        notes: 'n',
        clinical_notes: 'cn',
        completion_notes: 'done',
      })
      .execute();
    const call = await server.call('POST', '/v1/calls', {
      token: t.token,
      body: { externalCallId: randomUUID(), direction: 'inbound', from: '333 000 9999', to: '02 1234567', transcript: 'parla di diabete', summary: 'diabete' },
    });
    expect(call.body.patientId).toBe(p.id);
    const chat = await admin('POST', `/admin/v1/clinics/${t.clinicId}/conversations`, { patientId: p.id });
    expect(chat.status, chat.text).toBe(201);
    const said = await admin('POST', `/admin/v1/clinics/${t.clinicId}/conversations/${chat.body.id}/messages`, {
      direction: 'in',
      author: 'paziente',
      type: 'testo',
      body: 'ho il diabete',
    });
    expect(said.status, said.text).toBe(201);
    // Notes an outbound call wrote about the patient: a recall attempt, a confirmation answer, a waitlist entry.
    const recall = await server.call('POST', `/v1/recalls/${p.id}/attempts`, {
      token: t.token,
      body: { channel: 'phone', outcome: 'no_answer', note: 'diabete, richiamare' },
    });
    expect(recall.status, recall.text).toBe(201);
    await server.ctx.db
      .insertInto('confirmation_attempts')
      .values({
        id: randomUUID(),
        clinic_id: t.clinicId,
        appointment_id: appointmentId,
        patient_id: p.id,
        channel: 'phone',
        outcome: 'no_answer',
        note: 'diabete',
      })
      .execute();
    await server.ctx.db
      .insertInto('waitlist_entries')
      .values({
        id: randomUUID(),
        clinic_id: t.clinicId,
        facility_id: t.facilityIds[0],
        calendar_id: (await makeCalendar(server, t)).id,
        patient_id: p.id,
        earliest: '2026-12-01T08:00:00Z',
        latest: '2026-12-20T18:00:00Z',
        channel: 'phone',
        note: 'diabete',
      } as never)
      .execute();
    const res = await admin('POST', `/admin/v1/clinics/${t.clinicId}/patients/${p.id}/erase`);
    expect(res.status, res.text).toBe(200);
    for (const table of ['recall_attempts', 'confirmation_attempts', 'waitlist_entries'] as const) {
      const notes = await server.ctx.db.selectFrom(table).select('note').where('patient_id', '=', p.id).execute();
      expect(notes.length, table).toBe(1);
      expect(notes, table).toEqual([{ note: null }]);
    }
    const messages = await server.ctx.db.selectFrom('chat_messages').select(['body', 'transcription']).where('conversation_id', '=', chat.body.id).execute();
    expect(messages).toEqual([{ body: null, transcription: null }]);
    const conversation = await server.ctx.db.selectFrom('conversations').select('phone').where('id', '=', chat.body.id).executeTakeFirstOrThrow();
    expect(conversation.phone).toBeNull();
    expect(res.body).toMatchObject({
      id: p.id,
      firstName: null,
      lastName: null,
      email: null,
      phone: null,
      taxCode: null,
      dateOfBirth: null,
      notes: null,
      allergies: null,
      isActive: false,
    });
    const row = await server.ctx.db.selectFrom('patients').selectAll().where('id', '=', p.id).executeTakeFirstOrThrow();
    expect(row.erased_at).toBeTruthy();
    expect(JSON.stringify(row)).not.toMatch(/diabete|erase@|Ada|ERSDTA/);
    const appt = await server.ctx.db.selectFrom('appointments').selectAll().where('id', '=', appointmentId).executeTakeFirstOrThrow();
    expect([appt.title, appt.reason, appt.notes, appt.clinical_notes, appt.completion_notes]).toEqual([null, null, null, null, null]);
    const c = await server.ctx.db.selectFrom('calls').selectAll().where('id', '=', call.body.id).executeTakeFirstOrThrow();
    expect([c.transcript, c.summary]).toEqual([null, null]);
    const ev = (await events(t.clinicId, 'patient.archived')).find((e) => e.data.id === p.id)!;
    expect(ev.data.reason).toBe('erased');
    expect((await admin('POST', `/admin/v1/clinics/${t.clinicId}/patients/${p.id}/erase`)).body.error.details.reason).toBe('already_erased');
    const lookup = await server.call('GET', '/v1/patients/lookup?phone=3330009999', { token: t.token });
    expect(lookup.body.found).toBe(false);
    // The same person may be created again.
    expect(
      (await server.call('POST', '/v1/patients', { token: t.token, body: { firstName: 'Ada', lastName: row.last_name ?? 'x', phone: '333 000 9999' } })).status,
    ).toBe(201);
  });

  it('imports a list: up to 50 record one event each, more record one events.skipped bulk_import', async () => {
    const small = await server.factories.tenant();
    const list = (k: number, prefix: string) =>
      Array.from({ length: k }, (_, i) => ({ firstName: prefix, lastName: `Numero${i}`, phone: `+39 333 ${String(5000000 + i)}` }));
    const res = await admin('POST', `/admin/v1/clinics/${small.clinicId}/patients/import`, { patients: list(50, 'Piccolo') });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ created: 50, eventsSkipped: false });
    expect(await events(small.clinicId, 'patient.created')).toHaveLength(50);
    expect(await events(small.clinicId, 'events.skipped')).toHaveLength(0);

    const big = await server.factories.tenant();
    const res2 = await admin('POST', `/admin/v1/clinics/${big.clinicId}/patients/import`, { patients: list(51, 'Grande') });
    expect(res2.body).toMatchObject({ created: 51, eventsSkipped: true });
    expect(await events(big.clinicId, 'patient.created')).toHaveLength(0);
    const skipped = await events(big.clinicId, 'events.skipped');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.data).toEqual({ type: 'patient.created', scope: 'patients:read', reason: 'bulk_import', count: 51 });

    // All or nothing: a duplicate or a bad item writes nothing.
    const dup = await admin('POST', `/admin/v1/clinics/${big.clinicId}/patients/import`, {
      patients: [{ firstName: 'Nuovo', lastName: 'Uno' }, list(1, 'Grande')[0]],
    });
    expect(dup.status).toBe(409);
    expect(dup.body.error.details).toMatchObject({ reason: 'duplicate_patient', index: 1 });
    const bad = await admin('POST', `/admin/v1/clinics/${big.clinicId}/patients/import`, {
      patients: [
        { firstName: 'Nuovo', lastName: 'Due', phone: '12345' },
        { firstName: '', lastName: 'x' },
      ],
    });
    expect(bad.status).toBe(400);
    const count = await server.ctx.db
      .selectFrom('patients')
      .select((eb) => eb.fn.countAll().as('c'))
      .where('clinic_id', '=', big.clinicId)
      .executeTakeFirstOrThrow();
    expect(Number(count.c)).toBe(51);
  });
});

describe('OpenAPI', () => {
  it('documents every people operation with tags, summary, description and responses', async () => {
    const v1 = (await server.call('GET', '/v1/openapi.json')).body;
    const adminDoc = (await admin('GET', '/admin/v1/openapi.json')).body;
    const ops = new Map<string, any>();
    for (const doc of [v1, adminDoc])
      for (const item of Object.values(doc.paths as Record<string, Record<string, any>>)) for (const op of Object.values(item)) ops.set(op.operationId, op);
    for (const id of [
      'createPatient',
      'getPatient',
      'searchPatients',
      'lookupPatient',
      'createLead',
      'getLead',
      'createCall',
      'getCall',
      'adminUpdatePatient',
      'adminArchivePatient',
      'adminErasePatient',
      'adminImportPatients',
      'adminUpdateLead',
      'adminAddLeadActivity',
      'adminConvertLead',
    ]) {
      const op = ops.get(id);
      expect(op, id).toBeTruthy();
      expect(op.tags.length, id).toBeGreaterThan(0);
      expect(op.summary, id).toBeTruthy();
      expect(Object.keys(op.responses), id).toContain('400');
    }
    expect(Object.keys(ops.get('createPatient').responses)).toEqual(expect.arrayContaining(['201', '403', '409', '422']));
    expect(Object.keys(ops.get('createLead').responses)).toEqual(expect.arrayContaining(['200', '201']));
    expect(ops.get('createPatient').description).toContain('duplicate_patient');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { at, insertPatient } from './helpers.js';

let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());

const LIST_FIELDS = [
  'calendarId',
  'category',
  'chairId',
  'createdAt',
  'doctorId',
  'end',
  'facilityId',
  'id',
  'origin',
  'patientId',
  'reason',
  'start',
  'status',
  'title',
  'treatmentPlanId',
  'type',
  'updatedAt',
];
const EVENT_FIELDS = [
  'calendarId',
  'chairId',
  'createdAt',
  'doctorId',
  'endTime',
  'facilityId',
  'id',
  'origin',
  'patientId',
  'startTime',
  'status',
  'treatmentPlanId',
  'updatedAt',
];

async function events(clinicId: string, type?: string) {
  let q = server.ctx.db.selectFrom('events').selectAll().where('clinic_id', '=', clinicId);
  if (type) q = q.where('type', '=', type);
  return q.orderBy('created_at').orderBy('id').execute();
}

async function createAppt(t: Tenant, body: Record<string, unknown>) {
  const res = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/appointments`, body);
  expect(res.status, res.text).toBe(201);
  // Distinct updated_at instants, so the order of creation is the list order.
  await new Promise((r) => setTimeout(r, 3));
  return res.body;
}

describe('GET /v1/appointments', () => {
  let t: Tenant;
  let p1: string;
  let p2: string;
  const ids: string[] = [];

  beforeAll(async () => {
    t = await server.factories.tenant();
    p1 = await insertPatient(server, t);
    p2 = await insertPatient(server, t, t.facilityIds[1]);
    ids.push(
      (
        await createAppt(t, {
          patientId: p1,
          start: at(5, 9),
          end: at(5, 9, 30),
          doctorId: t.doctorId,
          facilityId: t.facilityIds[0],
          title: 'Igiene',
          reason: 'dolore',
          notes: 'nota',
          clinicalNotes: 'clinica',
        })
      ).id,
    );
    ids.push((await createAppt(t, { patientId: p1, start: at(5, 10), end: at(5, 10, 30), facilityId: t.facilityIds[0], status: 'confirmed' })).id);
    ids.push(
      (await createAppt(t, { patientId: p2, start: at(5, 11), end: at(5, 11, 30), facilityId: t.facilityIds[1], type: 'checkup', category: 'recall' })).id,
    );
    ids.push((await createAppt(t, { patientId: p2, start: at(4, 11), end: at(4, 11, 30), facilityId: t.facilityIds[1], status: 'draft' })).id);
  });

  it('returns every field of 2.2 and no other; never the notes', async () => {
    const res = await server.call('GET', '/v1/appointments', { token: t.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toHaveLength(4);
    for (const a of res.body.data) expect(Object.keys(a).sort()).toEqual(LIST_FIELDS);
    const first = res.body.data.find((a: any) => a.id === ids[0]);
    expect(first).toMatchObject({
      patientId: p1,
      doctorId: t.doctorId,
      title: 'Igiene',
      reason: 'dolore',
      status: 'scheduled',
      origin: 'manual',
      calendarId: null,
      chairId: null,
    });
    expect(first.start).toBe(at(5, 9));
    expect(res.body.nextCursor).toBeNull();
  });

  it('orders by update (default) and by start, and pages with the cursor', async () => {
    const byUpdate = await server.call('GET', '/v1/appointments?limit=3', { token: t.token });
    expect(byUpdate.body.data.map((a: any) => a.id)).toEqual(ids.slice(0, 3));
    const next = await server.call('GET', `/v1/appointments?limit=3&cursor=${byUpdate.body.nextCursor}`, { token: t.token });
    expect(next.body.data.map((a: any) => a.id)).toEqual([ids[3]]);
    expect(next.body.nextCursor).toBeNull();

    const byStart = await server.call('GET', '/v1/appointments?sort=start&limit=2', { token: t.token });
    expect(byStart.body.data.map((a: any) => a.id)).toEqual([ids[3], ids[0]]);
    const rest = await server.call('GET', `/v1/appointments?sort=start&limit=2&cursor=${byStart.body.nextCursor}`, { token: t.token });
    expect(rest.body.data.map((a: any) => a.id)).toEqual([ids[1], ids[2]]);
    // A cursor of one list is refused by another.
    const mixed = await server.call('GET', `/v1/appointments?limit=2&cursor=${byStart.body.nextCursor}`, { token: t.token });
    expect(mixed.status).toBe(400);
  });

  it('filters by facility, doctor, patient, statuses, from (inclusive) and to (exclusive)', async () => {
    const get = async (qs: string) => (await server.call('GET', `/v1/appointments?sort=start&${qs}`, { token: t.token })).body.data.map((a: any) => a.id);
    expect(await get(`facilityId=${t.facilityIds[1]}`)).toEqual([ids[3], ids[2]]);
    expect(await get(`doctorId=${t.doctorId}`)).toEqual([ids[0]]);
    expect(await get(`patientId=${p1}`)).toEqual([ids[0], ids[1]]);
    expect(await get('status=confirmed,draft')).toEqual([ids[3], ids[1]]);
    expect(await get(`from=${encodeURIComponent(at(5, 9))}&to=${encodeURIComponent(at(5, 11))}`)).toEqual([ids[0], ids[1]]);
    const since = await server.call('GET', `/v1/appointments?updatedSince=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, {
      token: t.token,
    });
    expect(since.body.data).toEqual([]);
  });

  it('refuses bad parameters naming every wrong one', async () => {
    const bad = await server.call('GET', '/v1/appointments?status=scheduled,bogus&limit=0&from=2026-02-30T10:00:00Z', { token: t.token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    expect(bad.body.error.details.in).toBe('query');
    expect(bad.body.error.details.issues.map((i: any) => i.path).sort()).toEqual(['from', 'limit', 'status']);
    const both = await server.call('GET', `/v1/appointments?sort=start&updatedSince=${encodeURIComponent(at(0, 0))}`, { token: t.token });
    expect(both.status).toBe(400);
    expect(both.body.error.details.issues.map((i: any) => i.path)).toEqual(['updatedSince']);
    expect((await server.call('GET', '/v1/appointments?limit=201', { token: t.token })).status).toBe(400);
    expect((await server.call('GET', '/v1/appointments?sort=name', { token: t.token })).status).toBe(400);
    expect((await server.call('GET', `/v1/appointments?status=${'scheduled,'.repeat(25)}scheduled`, { token: t.token })).status).toBe(400);
  });

  it('shows a facility-limited key only its facility', async () => {
    const key = await server.factories.key(t.clinicId, ['appointments:read'], [t.facilityIds[1]]);
    const res = await server.call('GET', '/v1/appointments?sort=start', { token: key.token });
    expect(res.body.data.map((a: any) => a.id)).toEqual([ids[3], ids[2]]);
    const other = await server.call('GET', '/v1/appointments', { token: tenant.token });
    expect(other.body.data.filter((a: any) => ids.includes(a.id))).toEqual([]);
  });

  it('writes the read of title and reason to the access log', async () => {
    const res = await server.call('GET', '/v1/appointments', { token: t.token, headers: { 'x-request-id': 'list-log-1' } });
    expect(res.status).toBe(200);
    const log = await server.ctx.db.selectFrom('access_log_entries').selectAll().where('request_id', '=', 'list-log-1').execute();
    expect(log).toHaveLength(1);
    expect(log[0]!.resource_type).toBe('appointment');
    expect(log[0]!.resource_ids).toEqual([ids[0]]);
    expect(log[0]!.fields).toEqual(['title', 'reason']);
    expect(log[0]!.api_key_id).toBe(t.keyId);
  });
});

describe('GET /v1/appointments/{id}', () => {
  it('adds the notes only with clinical:read, logs the read and sends an ETag', async () => {
    const p = await insertPatient(server, tenant);
    const a = await createAppt(tenant, { patientId: p, start: at(6, 9), end: at(6, 9, 30), title: 'Visita', notes: 'n', clinicalNotes: 'c' });
    const full = await server.call('GET', `/v1/appointments/${a.id}`, { token: tenant.token, headers: { 'x-request-id': 'detail-log-1' } });
    expect(full.status).toBe(200);
    expect(full.headers.get('etag')).toBe('"1"');
    expect(full.body).toMatchObject({ notes: 'n', clinicalNotes: 'c', completionNotes: null, title: 'Visita' });
    expect(Object.keys(full.body).sort()).toEqual([...LIST_FIELDS, 'clinicalNotes', 'completionNotes', 'notes'].sort());
    const log = await server.ctx.db.selectFrom('access_log_entries').selectAll().where('request_id', '=', 'detail-log-1').execute();
    expect(log[0]!.fields).toEqual(['title', 'notes', 'clinicalNotes']);

    const key = await server.factories.key(tenant.clinicId, ['appointments:read']);
    const plain = await server.call('GET', `/v1/appointments/${a.id}`, { token: key.token });
    expect(Object.keys(plain.body).sort()).toEqual(LIST_FIELDS);
    expect((await server.call('GET', `/v1/appointments/${crypto.randomUUID()}`, { token: tenant.token })).status).toBe(404);
    expect((await server.call('GET', '/v1/appointments/not-a-uuid', { token: tenant.token })).body.error.details.in).toBe('path');
  });
});

describe('back-office appointments', () => {
  it('records appointment.created with exactly the 6.2 fields', async () => {
    const t = await server.factories.tenant();
    const p = await insertPatient(server, t);
    const a = await createAppt(t, { patientId: p, start: at(7, 9), end: at(7, 10), doctorId: t.doctorId, title: 'segreto', reason: 'carie', notes: 'x' });
    const [e] = await events(t.clinicId, 'appointment.created');
    expect(Object.keys(e!.data).sort()).toEqual(EVENT_FIELDS);
    expect(e!.data).toMatchObject({
      id: a.id,
      status: 'scheduled',
      startTime: at(7, 9),
      endTime: at(7, 10),
      patientId: p,
      doctorId: t.doctorId,
      facilityId: t.facilityIds[0],
    });
    expect(e!.facility_id).toBe(t.facilityIds[0]);
    expect(JSON.stringify(e!.data)).not.toMatch(/segreto|carie/);
  });

  it('reschedules with data.previous and refuses overlaps of a doctor', async () => {
    const t = await server.factories.tenant();
    const p = await insertPatient(server, t);
    const a = await createAppt(t, { patientId: p, start: at(8, 9), end: at(8, 10), doctorId: t.doctorId });
    const moved = await server.admin('PATCH', `/admin/v1/clinics/${t.clinicId}/appointments/${a.id}`, {
      start: at(8, 11),
      end: at(8, 12),
      facilityId: t.facilityIds[1],
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({ start: at(8, 11), end: at(8, 12), facilityId: t.facilityIds[1] });
    const [e] = await events(t.clinicId, 'appointment.rescheduled');
    expect(e!.data.previous).toEqual({ startTime: at(8, 9), endTime: at(8, 10), doctorId: t.doctorId, chairId: null, facilityId: t.facilityIds[0] });
    expect(e!.data).toMatchObject({ startTime: at(8, 11), facilityId: t.facilityIds[1] });

    // The same doctor in upper case is no move: no event.
    await server.admin('PATCH', `/admin/v1/clinics/${t.clinicId}/appointments/${a.id}`, { doctorId: t.doctorId.toUpperCase() });
    expect(await events(t.clinicId, 'appointment.rescheduled')).toHaveLength(1);
    expect((await server.call('GET', `/v1/appointments/${a.id.toUpperCase()}`, { token: t.token })).body.id).toBe(a.id);
    // Only notes change: no event.
    await server.admin('PATCH', `/admin/v1/clinics/${t.clinicId}/appointments/${a.id}`, { notes: 'nuova nota' });
    expect(await events(t.clinicId, 'appointment.rescheduled')).toHaveLength(1);

    const before = (await events(t.clinicId)).length;
    const clash = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/appointments`, {
      patientId: p,
      start: at(8, 11, 30),
      end: at(8, 12, 30),
      doctorId: t.doctorId,
    });
    expect(clash.status).toBe(409);
    expect(clash.body.error.details.reason).toBe('doctor_busy');
    expect((await events(t.clinicId)).length).toBe(before);
    // A cancelled appointment frees the time.
    await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/appointments/${a.id}/status`, { status: 'cancelled' });
    expect(
      (
        await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/appointments`, {
          patientId: p,
          start: at(8, 11, 30),
          end: at(8, 12, 30),
          doctorId: t.doctorId,
        })
      ).status,
    ).toBe(201);
  });

  it('moves through the allowed statuses with their events and refuses the others', async () => {
    const t = await server.factories.tenant();
    const p = await insertPatient(server, t);
    const a = await createAppt(t, { patientId: p, start: at(9, 9), end: at(9, 10) });
    const set = (status: string, headers?: Record<string, string>) =>
      server.call('POST', `/admin/v1/clinics/${t.clinicId}/appointments/${a.id}/status`, { token: 'test-admin-token-0123456789', body: { status }, headers });
    for (const status of ['confirmed', 'checked_in', 'in_progress', 'completed']) expect((await set(status)).status).toBe(200);
    const types = (await events(t.clinicId)).map((e) => e.type);
    expect(types).toEqual(['appointment.created', 'appointment.confirmed', 'appointment.checked_in', 'appointment.completed']);
    const refused = await set('cancelled');
    expect(refused.status).toBe(409);
    expect(refused.body.error.details).toMatchObject({ reason: 'invalid_transition', from: 'completed', to: 'cancelled' });
    const move = await server.admin('PATCH', `/admin/v1/clinics/${t.clinicId}/appointments/${a.id}`, { start: at(9, 11), end: at(9, 12) });
    expect(move.body.error.details.reason).toBe('not_reschedulable');

    const b = await createAppt(t, { patientId: p, start: at(10, 9), end: at(10, 10) });
    expect((await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/appointments/${b.id}/status`, { status: 'no_show' })).status).toBe(200);
    const stale = await server.call('POST', `/admin/v1/clinics/${t.clinicId}/appointments/${b.id}/status`, {
      token: 'test-admin-token-0123456789',
      body: { status: 'cancelled' },
      headers: { 'if-match': '"1"' },
    });
    expect(stale.body.error.details.reason).toBe('version_mismatch');
    expect(await events(t.clinicId, 'appointment.no_show')).toHaveLength(1);
  });

  it('refuses bad input naming every field and writes nothing', async () => {
    const t = await server.factories.tenant();
    const other = await server.factories.tenant();
    const foreignPatient = await insertPatient(server, other);
    const res = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/appointments`, {
      patientId: foreignPatient,
      start: at(1, 10),
      end: at(1, 9),
      doctorId: other.doctorId,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues.map((i: any) => i.path).sort()).toEqual(['doctorId', 'end', 'patientId']);
    const schema = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/appointments`, {
      patientId: 'x',
      start: '2026-13-01T10:00Z',
      end: at(1, 9),
      status: 'completed',
      extra: 1,
    });
    expect(schema.body.error.details.issues.map((i: any) => i.path).sort()).toEqual(['extra', 'patientId', 'start', 'status']);
    expect(await server.ctx.db.selectFrom('appointments').select('id').where('clinic_id', '=', t.clinicId).execute()).toEqual([]);
    expect(await events(t.clinicId)).toEqual([]);
  });
});

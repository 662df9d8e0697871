import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refused, issuePaths } from '../../helpers/refused.js';
import type { operations } from '../../../packages/client/src/schema.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { at, insertPatient } from '../../helpers/seed.js';

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

type ListQuery = NonNullable<operations['listAppointments']['parameters']['query']>;
/** A typed list call (the project's client, generated OpenAPI types). */
const list = (token: string, query: ListQuery = {}, headers: Record<string, string> = {}) =>
  server.api(token).callWithResponse('listAppointments', { params: { query }, headers });
const getAppointment = (token: string, id: string, headers: Record<string, string> = {}) =>
  server.api(token).callWithResponse('getAppointment', { params: { path: { id } }, headers });

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
    const res = await list(t.token);
    expect(res.response.status).toBe(200);
    expect(res.data.data).toHaveLength(4);
    for (const a of res.data.data) expect(Object.keys(a).sort()).toEqual(LIST_FIELDS);
    const first = res.data.data.find((a) => a.id === ids[0])!;
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
    expect(res.data.nextCursor).toBeNull();
  });

  it('orders by update (default) and by start, and pages with the cursor', async () => {
    const byUpdate = (await list(t.token, { limit: 3 })).data;
    expect(byUpdate.data.map((a) => a.id)).toEqual(ids.slice(0, 3));
    const next = (await list(t.token, { limit: 3, cursor: byUpdate.nextCursor! })).data;
    expect(next.data.map((a) => a.id)).toEqual([ids[3]]);
    expect(next.nextCursor).toBeNull();

    const byStart = (await list(t.token, { sort: 'start', limit: 2 })).data;
    expect(byStart.data.map((a) => a.id)).toEqual([ids[3], ids[0]]);
    const rest = (await list(t.token, { sort: 'start', limit: 2, cursor: byStart.nextCursor! })).data;
    expect(rest.data.map((a) => a.id)).toEqual([ids[1], ids[2]]);
    // A cursor of one list is refused by another.
    const mixed = await refused(list(t.token, { limit: 2, cursor: byStart.nextCursor! }));
    expect(mixed.status).toBe(400);
  });

  it('filters by facility, doctor, patient, statuses, from (inclusive) and to (exclusive)', async () => {
    const get = async (query: ListQuery) => (await list(t.token, { sort: 'start', ...query })).data.data.map((a) => a.id);
    expect(await get({ facilityId: t.facilityIds[1] })).toEqual([ids[3], ids[2]]);
    expect(await get({ doctorId: t.doctorId })).toEqual([ids[0]]);
    expect(await get({ patientId: p1 })).toEqual([ids[0], ids[1]]);
    expect(await get({ status: 'confirmed,draft' })).toEqual([ids[3], ids[1]]);
    expect(await get({ from: at(5, 9), to: at(5, 11) })).toEqual([ids[0], ids[1]]);
    const since = await list(t.token, { updatedSince: new Date(Date.now() + 60_000).toISOString() });
    expect(since.data.data).toEqual([]);
  });

  it('refuses bad parameters naming every wrong one', async () => {
    const bad = await refused(list(t.token, { status: 'scheduled,bogus', limit: 0, from: '2026-02-30T10:00:00Z' }));
    expect(bad.status).toBe(400);
    expect(bad.code).toBe('invalid_request');
    expect(bad.details?.in).toBe('query');
    expect(issuePaths(bad).sort()).toEqual(['from', 'limit', 'status']);
    const both = await refused(list(t.token, { sort: 'start', updatedSince: at(0, 0) }));
    expect(both.status).toBe(400);
    expect(issuePaths(both)).toEqual(['updatedSince']);
    expect((await refused(list(t.token, { limit: 201 }))).status).toBe(400);
    // A sort outside the contract's list: raw.
    expect((await server.call('GET', '/v1/appointments?sort=name', { token: t.token })).status).toBe(400);
    expect((await refused(list(t.token, { status: `${'scheduled,'.repeat(25)}scheduled` }))).status).toBe(400);
  });

  it('shows a facility-limited key only its facility', async () => {
    const key = await server.factories.key(t.clinicId, ['appointments:read'], [t.facilityIds[1]]);
    const res = await list(key.token, { sort: 'start' });
    expect(res.data.data.map((a) => a.id)).toEqual([ids[3], ids[2]]);
    const other = await list(tenant.token);
    expect(other.data.data.filter((a) => ids.includes(a.id))).toEqual([]);
  });

  it('writes the read of title and reason to the access log', async () => {
    const res = await list(t.token, {}, { 'x-request-id': 'list-log-1' });
    expect(res.response.status).toBe(200);
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
    const full = await getAppointment(tenant.token, a.id, { 'x-request-id': 'detail-log-1' });
    expect(full.response.status).toBe(200);
    expect(full.response.headers.get('etag')).toBe('"1"');
    expect(full.data).toMatchObject({ notes: 'n', clinicalNotes: 'c', completionNotes: null, title: 'Visita' });
    expect(Object.keys(full.data).sort()).toEqual([...LIST_FIELDS, 'clinicalNotes', 'completionNotes', 'notes'].sort());
    const log = await server.ctx.db.selectFrom('access_log_entries').selectAll().where('request_id', '=', 'detail-log-1').execute();
    expect(log[0]!.fields).toEqual(['title', 'notes', 'clinicalNotes']);

    const key = await server.factories.key(tenant.clinicId, ['appointments:read']);
    const plain = await getAppointment(key.token, a.id);
    expect(Object.keys(plain.data).sort()).toEqual(LIST_FIELDS);
    expect((await refused(getAppointment(tenant.token, crypto.randomUUID()))).status).toBe(404);
    expect((await refused(getAppointment(tenant.token, 'not-a-uuid'))).details?.in).toBe('path');
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
    expect((await getAppointment(t.token, a.id.toUpperCase())).data.id).toBe(a.id);
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
      // A past visit may be entered as completed (an imported history); a no-show may not.
      status: 'no_show',
      extra: 1,
    });
    expect(schema.body.error.details.issues.map((i: any) => i.path).sort()).toEqual(['extra', 'patientId', 'start', 'status']);
    expect(await server.ctx.db.selectFrom('appointments').select('id').where('clinic_id', '=', t.clinicId).execute()).toEqual([]);
    expect(await events(t.clinicId)).toEqual([]);
  });
});

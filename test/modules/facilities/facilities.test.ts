import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChair } from '../../../src/modules/chairs/service.js';
import type { Tenant } from '../../helpers/factories.js';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../../helpers/server.js';
import { ALL_DAY, at } from '../../helpers/seed.js';

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
});
afterAll(() => server.close());

// Typed calls (the project's client, generated OpenAPI types).
const getFacility = (id: string) => server.api(t.token).call('getFacility', { params: { path: { id } } });
const availability = (id: string, query: { from: string; to: string }) =>
  server.api(t.token).call('getCalendarAvailability', { params: { path: { id }, query } });

describe('back-office facility update', () => {
  it('changes only the fields sent, with a validated working schedule, seen by GET /v1/facilities/{id}', async () => {
    const schedule = {
      mon: [
        { open: '09:00', close: '13:00' },
        { open: '14:00', close: '19:00' },
      ],
      sat: [{ open: '09:00', close: '12:30' }],
    };
    const res = await server.admin('PATCH', `/admin/v1/clinics/${t.clinicId}/facilities/${t.facilityIds[0]}`, {
      workingSchedule: schedule,
      phone: '02 1234567',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('etag')).toBe('"2"');
    const read = await getFacility(t.facilityIds[0]);
    expect(read).toMatchObject({ name: 'Sede Centro', city: 'Milano', phone: '+39021234567', workingSchedule: schedule });

    const bad = await server.admin('PATCH', `/admin/v1/clinics/${t.clinicId}/facilities/${t.facilityIds[0]}`, {
      workingSchedule: { mon: [{ open: '9:00', close: '13:00' }], funday: [], tue: [{ open: '10:00', close: '25:00' }] },
      avgAppointmentMinutes: 1,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: any) => i.path).sort()).toEqual([
      'avgAppointmentMinutes',
      'workingSchedule.funday',
      'workingSchedule.mon.0.open',
      'workingSchedule.tue.0.close',
    ]);
    const order = await server.admin('PATCH', `/admin/v1/clinics/${t.clinicId}/facilities/${t.facilityIds[0]}`, {
      workingSchedule: {
        wed: [
          { open: '14:00', close: '12:00' },
          { open: '08:00', close: '09:00' },
        ],
      },
    });
    expect(order.body.error.details.issues.map((i: any) => i.path)).toEqual(['workingSchedule.wed.0.close', 'workingSchedule.wed.1.open']);
    const stale = await server.call('PATCH', `/admin/v1/clinics/${t.clinicId}/facilities/${t.facilityIds[0]}`, {
      token: ADMIN_TOKEN,
      body: { name: 'X' },
      headers: { 'if-match': '"1"' },
    });
    expect(stale.body.error.details.reason).toBe('version_mismatch');
    expect((await getFacility(t.facilityIds[0])).name).toBe('Sede Centro');
    const other = await server.factories.tenant();
    expect((await server.admin('PATCH', `/admin/v1/clinics/${t.clinicId}/facilities/${other.facilityIds[0]}`, { name: 'X' })).status).toBe(404);
  });
});

describe('back-office calendars', () => {
  it('creates, validates its references and updates its rules', async () => {
    const other = await server.factories.tenant();
    const foreignChair = await createChair(server.ctx.db, t.clinicId, { name: 'Nord 1', facilityId: t.facilityIds[1] });
    const otherClinicChair = await createChair(server.ctx.db, other.clinicId, { name: 'Altrove 1', facilityId: other.facilityIds[0] });
    const bad = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/calendars`, {
      facilityId: t.facilityIds[0],
      name: 'Igiene',
      slotMinutes: 30,
      workingHours: ALL_DAY,
      doctorIds: [other.doctorId],
      chairIds: [foreignChair.id, otherClinicChair.id],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: any) => i.path).sort()).toEqual(['chairIds.0', 'chairIds.1', 'doctorIds.0']);
    const empty = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/calendars`, {
      facilityId: t.facilityIds[0],
      name: '',
      slotMinutes: 2,
      workingHours: {},
      doctorIds: [],
    });
    expect(empty.body.error.details.issues.map((i: any) => i.path).sort()).toEqual(['doctorIds', 'name', 'slotMinutes']);

    const created = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/calendars`, {
      facilityId: t.facilityIds[0],
      name: 'Igiene',
      slotMinutes: 60,
      workingHours: ALL_DAY,
      doctorIds: [t.doctorId],
      horizonDays: 5,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      slotMinutes: 60,
      doctorIds: [t.doctorId],
      chairIds: [],
      minNoticeMinutes: 0,
      horizonDays: 5,
      cancellationNoticeMinutes: 0,
      active: true,
    });
    const window = { from: at(7, 0), to: at(8, 0) };
    expect((await availability(created.body.id, window)).window).toBeNull();
    const updated = await server.admin('PATCH', `/admin/v1/clinics/${t.clinicId}/calendars/${created.body.id}`, { horizonDays: 30 });
    expect(updated.body.horizonDays).toBe(30);
    const slots = await availability(created.body.id, window);
    // 24 hourly slots (23 or 25 across a daylight-saving change).
    expect(slots.data.length).toBeGreaterThanOrEqual(23);
    expect(slots.data.length).toBeLessThanOrEqual(25);
    await server.admin('PATCH', `/admin/v1/clinics/${t.clinicId}/calendars/${created.body.id}`, { active: false });
    expect(await availability(created.body.id, window)).toMatchObject({
      window: null,
      data: [],
    });
  });
});

describe('facilities on /v1 and their creation', () => {
  it('refuses a facility created with a schedule out of order, naming the field', async () => {
    const res = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/facilities`, {
      name: 'Sede Est',
      phone: 'not a phone',
      workingSchedule: { mon: [{ open: '14:00', close: '09:00' }] },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path.split('.')[0].split('/')[0]).sort()).toEqual(['phone', 'workingSchedule']);
  });

  it('lists the facilities the key sees', async () => {
    const own = await server.factories.tenant();
    const all = await server.api(own.token).call('listFacilities');
    expect(all.data.map((f) => f.id).sort()).toEqual([...own.facilityIds].sort());
    const limited = await server.factories.key(own.clinicId, ['clinic:read'], [own.facilityIds[1]]);
    expect((await server.api(limited.token).call('listFacilities')).data.map((f) => f.id)).toEqual([own.facilityIds[1]]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DentalClinicClient, type OperationTypes } from '../../../packages/client/src/index.js';
import { refused as rejection, issuePaths } from '../../helpers/refused.js';
import type { Tenant } from '../../helpers/factories.js';
import { ENGINE, startTestServer, type TestServer } from '../../helpers/server.js';
import { sql } from 'kysely';
import { localToUtc } from '../../../src/lib/time-zone.js';
import { at, insertPatient, makeCalendar } from '../../helpers/seed.js';
import { emit } from '../webhooks/helpers.js';
import { revokeApiKey } from '../../../src/modules/auth/keys-service.js';
import { SCOPES } from '../../../src/modules/auth/scopes.js';

let server: TestServer;
let tenant: Tenant;
let api: DentalClinicClient;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
  api = server.api(tenant.token);
});
afterAll(() => server.close());

type BookingInput = OperationTypes['createAppointment']['requestBody']['content']['application/json'];
/** getCalendarAvailability through the typed client. */
const availability = (id: string, query?: { from: string; to: string }, client = api) =>
  client.callWithResponse('getCalendarAvailability', { params: { path: { id }, query } });
/** createAppointment through the typed client (`{ data, response }`; throws ApiClientError on a non-2xx answer). */
const book = (body: BookingInput, client = api, headers?: Record<string, string>) => client.callWithResponse('createAppointment', { body, headers });
const reschedule = (id: string, start: string, headers?: Record<string, string>) =>
  api.callWithResponse('rescheduleAppointment', { params: { path: { id } }, body: { start }, headers });
const cancel = (id: string) => api.callWithResponse('cancelAppointment', { params: { path: { id } } });

/** A local date (Europe/Rome) `days` from now as YYYY-MM-DD and its weekday key. */
function romeDay(days: number): { date: string; weekday: string } {
  const d = new Date(Date.now() + days * 86_400_000);
  const date = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Rome', year: 'numeric', month: '2-digit', day: '2-digit' }).format(d);
  const weekday = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'][new Date(`${date}T12:00:00Z`).getUTCDay()]!;
  return { date, weekday };
}

describe('GET /v1/calendars/{id}/availability', () => {
  it('offers the slots of the working hours in the clinic timezone, minus busy doctors and chairs', async () => {
    const { date, weekday } = romeDay(3);
    const cal = await makeCalendar(server, tenant, {
      workingHours: {
        [weekday]: [
          { open: '09:00', close: '10:30' },
          { open: '14:00', close: '15:00' },
        ],
      },
      slotMinutes: 30,
      chairs: 1,
    });
    // Window: the whole local day.
    const [y, m, d] = date.split('-').map(Number);
    const from = localToUtc(y!, m!, d!, 0, 'Europe/Rome').toISOString();
    const to = localToUtc(y!, m!, d!, 24 * 60, 'Europe/Rome').toISOString();
    const { data: res, response } = await availability(cal.id, { from, to });
    expect(response.status).toBe(200);
    const localTimes = res.data.map((s) =>
      new Intl.DateTimeFormat('it-IT', { timeZone: 'Europe/Rome', hour: '2-digit', minute: '2-digit' }).format(new Date(s.start)),
    );
    expect(localTimes).toEqual(['09:00', '09:30', '10:00', '14:00', '14:30']);
    expect(res.data[0]).toEqual({
      start: res.data[0]!.start,
      end: new Date(Date.parse(res.data[0]!.start) + 1_800_000).toISOString(),
      doctorId: cal.doctorIds[0],
      chairId: cal.chairIds[0],
      localDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      localTime: '09:00',
      partOfDay: 'morning',
      label: expect.stringMatching(/ alle 9:00$/),
    });
    expect(res.window).toEqual({ from, to });

    // The doctor is busy 09:15-09:45 (an appointment outside the calendar): 09:00 and 09:30 go.
    const p = await insertPatient(server, tenant);
    const nine = res.data[0]!.start;
    const busy = await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/appointments`, {
      patientId: p,
      start: new Date(Date.parse(nine) + 900_000).toISOString(),
      end: new Date(Date.parse(nine) + 2_700_000).toISOString(),
      doctorId: cal.doctorIds[0],
    });
    expect(busy.status).toBe(201);
    // The chair is busy at 14:00.
    const two = res.data[3]!.start;
    await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/appointments`, {
      patientId: p,
      start: two,
      end: new Date(Date.parse(two) + 1_800_000).toISOString(),
      chairId: cal.chairIds[0],
    });
    const after = (await availability(cal.id, { from, to })).data;
    expect(after.data.map((s) => s.start)).toEqual([res.data[2]!.start, res.data[4]!.start]);
  });

  it('takes every slot a busy time covers, also one begun before the window; a draft blocks nothing; a second doctor takes the slot', async () => {
    const { date, weekday } = romeDay(4);
    const cal = await makeCalendar(server, tenant, { workingHours: { [weekday]: [{ open: '09:00', close: '12:00' }] }, slotMinutes: 30, doctors: 2 });
    const [y, m, d] = date.split('-').map(Number);
    const local = (minutes: number) => localToUtc(y!, m!, d!, minutes, 'Europe/Rome');
    const p = await insertPatient(server, tenant);
    const enter = (doctorId: string, start: Date, end: Date, status?: string) =>
      server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/appointments`, {
        patientId: p,
        start: start.toISOString(),
        end: end.toISOString(),
        doctorId,
        ...(status ? { status } : {}),
      });
    const free = async () =>
      (await availability(cal.id, { from: local(9 * 60).toISOString(), to: local(12 * 60).toISOString() })).data.data.map((s) => [
        s.localTime,
        cal.doctorIds.indexOf(s.doctorId ?? ''),
      ]);
    // The first doctor is busy 08:00-10:45, begun before the window; the second has only a draft all morning.
    expect((await enter(cal.doctorIds[0]!, local(8 * 60), local(10 * 60 + 45))).status).toBe(201);
    expect((await enter(cal.doctorIds[1]!, local(9 * 60), local(12 * 60), 'draft')).status).toBe(201);
    expect(await free()).toEqual([
      ['09:00', 1],
      ['09:30', 1],
      ['10:00', 1],
      ['10:30', 1],
      ['11:00', 0],
      ['11:30', 0],
    ]);
    // The second doctor busy 09:30-10:00 as well: nobody is left for that slot.
    expect((await enter(cal.doctorIds[1]!, local(9 * 60 + 30), local(10 * 60))).status).toBe(201);
    expect((await free()).map(([time]) => time)).toEqual(['09:00', '10:00', '10:30', '11:00', '11:30']);
  });

  it('answers data [] when nothing is free and window null when the rules leave nothing to search', async () => {
    const cal = await makeCalendar(server, tenant, { horizonDays: 10, minNoticeMinutes: 120, workingHours: {} });
    const none = await availability(cal.id, { from: at(2, 0), to: at(3, 0) });
    expect(none.response.status).toBe(200);
    expect(none.data.data).toEqual([]);
    expect(none.data.window).not.toBeNull();
    const past = await availability(cal.id, { from: at(20, 0), to: at(22, 0) });
    expect(past.data).toEqual({ calendarId: cal.id, slotMinutes: 30, window: null, data: [], emptyReason: 'beyond_horizon', nextAvailable: null });
    const notice = await availability(cal.id, { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 3_600_000).toISOString() });
    expect(notice.data.window).toBeNull();
  });

  it('refuses a bad window naming the fields', async () => {
    const cal = await makeCalendar(server, tenant);
    const backwards = await rejection(availability(cal.id, { from: at(3, 0), to: at(2, 0) }));
    expect(backwards.status).toBe(400);
    expect(issuePaths(backwards)).toEqual(['to']);
    const long = await rejection(availability(cal.id, { from: at(1, 0), to: at(40, 0) }));
    expect(issuePaths(long)).toEqual(['to']);
    // Values that are not date-times (outside the contract): raw call.
    const bad = await server.call('GET', `/v1/calendars/${cal.id}/availability?from=yesterday&to=2026-02-30T00:00Z`, { token: tenant.token });
    expect(bad.body.error.details.issues.map((i: any) => i.path).sort()).toEqual(['from', 'to']);
  });
});

describe('POST /v1/appointments (booking)', () => {
  it('books a free slot with the caller’s origin, and records appointment.created', async () => {
    const cal = await makeCalendar(server, tenant, { chairs: 1 });
    const p = await insertPatient(server, tenant);
    const { data: res, response } = await book({ calendarId: cal.id, patientId: p, start: at(4, 10), origin: 'voice', reason: 'controllo' });
    expect(response.status).toBe(201);
    expect(response.headers.get('etag')).toBe('"1"');
    expect(res).toMatchObject({
      calendarId: cal.id,
      patientId: p,
      start: at(4, 10),
      end: at(4, 10, 30),
      origin: 'voice',
      status: 'scheduled',
      doctorId: cal.doctorIds[0],
      chairId: cal.chairIds[0],
      facilityId: tenant.facilityIds[0],
    });
    const e = await server.ctx.db.selectFrom('events').selectAll().where('type', '=', 'appointment.created').where('clinic_id', '=', tenant.clinicId).execute();
    expect(e.some((x) => (x.data as any).id === res.id && (x.data as any).origin === 'voice')).toBe(true);
  });

  it('books with ids written in capitals, as some integrations send them, and answers and records them in lower case', async () => {
    const cal = await makeCalendar(server, tenant, { chairs: 1 });
    const p = await insertPatient(server, tenant);
    const { data: res, response } = await book({
      calendarId: cal.id.toUpperCase(),
      patientId: p.toUpperCase(),
      doctorId: cal.doctorIds[0]!.toUpperCase(),
      start: at(4, 12),
    });
    expect(response.status).toBe(201);
    expect(res).toMatchObject({ calendarId: cal.id, patientId: p, doctorId: cal.doctorIds[0], chairId: cal.chairIds[0] });
    const e = await server.ctx.db
      .selectFrom('events')
      .select('data')
      .where('type', '=', 'appointment.created')
      .where('clinic_id', '=', tenant.clinicId)
      .execute();
    expect(e.map((x) => x.data as any).find((d) => d.id === res.id)).toMatchObject({ calendarId: cal.id, patientId: p, doctorId: cal.doctorIds[0] });
    // The same booking again, capitals or not, is a retry: the same appointment (200); for another patient the slot is taken.
    const again = await api.raw.POST('/appointments', {
      body: { calendarId: cal.id, patientId: p.toUpperCase(), doctorId: cal.doctorIds[0], start: at(4, 12) },
    });
    expect(again.response.status).toBe(200);
    expect(again.data?.id).toBe(res.id);
    const other = await insertPatient(server, tenant);
    await expect(book({ calendarId: cal.id, patientId: other, doctorId: cal.doctorIds[0], start: at(4, 12) })).rejects.toMatchObject({ status: 409 });
  });

  it('records a gap left while no key was active before the booking’s own event (its insert then does not commit it alone)', async () => {
    const t = await server.factories.tenant();
    const cal = await makeCalendar(server, t, { chairs: 1 });
    const p = await insertPatient(server, t);
    await revokeApiKey(server.ctx.db, t.keyId);
    expect((await emit(server.ctx, t.clinicId, 'task.created', t.facilityIds[0])).skipped).toBe('no_active_key');
    const fresh = server.api((await server.factories.key(t.clinicId, [...SCOPES])).token);
    const { data: booked, response } = await book({ calendarId: cal.id, patientId: p, start: at(4, 11) }, fresh);
    expect(response.status).toBe(201);
    const events = (await fresh.call('listEvents')).data.filter((e) => e.type !== 'apiKey.created');
    expect(events.map((e) => [e.type, e.data.type ?? e.data.id])).toEqual([
      ['events.skipped', 'task.created'],
      ['appointment.created', booked.id],
    ]);
    expect(await server.ctx.db.selectFrom('appointments').select('id').where('clinic_id', '=', t.clinicId).execute()).toEqual([{ id: booked.id }]);
    expect(await server.ctx.db.selectFrom('event_gaps').selectAll().where('clinic_id', '=', t.clinicId).execute()).toEqual([]);
  });

  it('answers 409 no_availability slot_taken with the nearest alternatives, and outside_availability off the grid', async () => {
    const cal = await makeCalendar(server, tenant);
    const p = await insertPatient(server, tenant);
    expect((await book({ calendarId: cal.id, patientId: p, start: at(5, 10) })).response.status).toBe(201);
    // Another patient (the same one would be answered its appointment: a retry).
    const taken = await rejection(book({ calendarId: cal.id, patientId: await insertPatient(server, tenant), start: at(5, 10) }));
    expect(taken.status).toBe(409);
    expect(taken.code).toBe('no_availability');
    expect(taken.reason).toBe('slot_taken');
    const alts = (taken.details?.alternatives as Array<{ start: string }>).map((s) => s.start);
    expect(alts).toHaveLength(5);
    expect(alts).toContain(at(5, 9, 30));
    expect(alts).toContain(at(5, 10, 30));
    expect(alts).not.toContain(at(5, 10));
    await expect(book({ calendarId: cal.id, patientId: p, start: at(5, 10, 10) })).rejects.toMatchObject({ details: { reason: 'outside_availability' } });
    const far = await rejection(book({ calendarId: cal.id, patientId: p, start: at(90, 10) }));
    expect(far.details).toEqual({ reason: 'outside_availability', alternatives: [] });
  });

  it('lets exactly one of 20 parallel bookings of one slot win', async () => {
    const cal = await makeCalendar(server, tenant);
    const patients = await Promise.all(Array.from({ length: 20 }, () => insertPatient(server, tenant)));
    // The non-throwing typed client: every answer, won or lost.
    const results = await Promise.all(patients.map((p) => api.raw.POST('/appointments', { body: { calendarId: cal.id, patientId: p, start: at(6, 15) } })));
    const statuses = results.map((r) => r.response.status).sort();
    const answers = JSON.stringify(results.map((r) => [r.response.status, r.error?.error.code]));
    expect(
      statuses.filter((s) => s === 201),
      answers,
    ).toHaveLength(1);
    expect(
      statuses.filter((s) => s === 409),
      answers,
    ).toHaveLength(19);
    for (const r of results.filter((r) => r.response.status === 409)) expect(r.error?.error.details?.reason).toBe('slot_taken');
    const rows = await server.ctx.db.selectFrom('appointments').select('id').where('calendar_id', '=', cal.id).execute();
    expect(rows).toHaveLength(1);
  });

  it('keeps one booking per doctor when parallel bookings of one slot name a doctor (locks before the read) or none (read, then lock)', async () => {
    const cal = await makeCalendar(server, tenant, { doctors: 2 });
    const [named, other] = cal.doctorIds as [string, string];
    const patients = await Promise.all(Array.from({ length: 20 }, () => insertPatient(server, tenant)));
    const results = await Promise.all(
      patients.map((p, i) =>
        api.raw.POST('/appointments', { body: { calendarId: cal.id, patientId: p, start: at(6, 16), ...(i % 2 === 0 ? { doctorId: named } : {}) } }),
      ),
    );
    const answers = JSON.stringify(results.map((r) => [r.response.status, r.error?.error.code, r.data?.doctorId]));
    const won = results.filter((r) => r.response.status === 201).map((r) => r.data!.doctorId);
    // A booking that names no doctor and finds both taken under its lock loses too: one or two winners, never two for one doctor.
    expect(won.length, answers).toBeGreaterThanOrEqual(1);
    expect(new Set(won).size, answers).toBe(won.length);
    expect(
      won.every((d) => d === named || d === other),
      answers,
    ).toBe(true);
    for (const r of results.filter((r) => r.response.status !== 201)) {
      expect(r.response.status, answers).toBe(409);
      expect(r.error?.error.details?.reason).toBe('slot_taken');
    }
    const rows = await server.ctx.db.selectFrom('appointments').select('doctor_id').where('calendar_id', '=', cal.id).execute();
    expect(rows.map((r) => r.doctor_id).sort()).toEqual([...won].sort());
  });

  it('keeps one booking of a slot when two doctors share its only chair, whether the parallel bookings name a doctor or none', async () => {
    const cal = await makeCalendar(server, tenant, { doctors: 2, chairs: 1 });
    const patients = await Promise.all(Array.from({ length: 20 }, () => insertPatient(server, tenant)));
    const results = await Promise.all(
      patients.map((p, i) =>
        api.raw.POST('/appointments', { body: { calendarId: cal.id, patientId: p, start: at(6, 17), ...(i % 2 === 0 ? { doctorId: cal.doctorIds[0] } : {}) } }),
      ),
    );
    const answers = JSON.stringify(results.map((r) => [r.response.status, r.error?.error.code]));
    expect(results.filter((r) => r.response.status === 201).length, answers).toBe(1);
    for (const r of results.filter((r) => r.response.status !== 201)) {
      expect(r.response.status, answers).toBe(409);
      expect(r.error?.error.details?.reason).toBe('slot_taken');
    }
    const rows = await server.ctx.db.selectFrom('appointments').select('chair_id').where('calendar_id', '=', cal.id).execute();
    expect(rows.map((r) => r.chair_id)).toEqual(cal.chairIds);
  });

  it('refuses unknown references naming them, and honours Idempotency-Key', async () => {
    const cal = await makeCalendar(server, tenant);
    const other = await server.factories.tenant();
    const foreign = await insertPatient(server, other);
    // An origin outside the contract's list: raw call.
    const bad = await server.call('POST', '/v1/appointments', {
      token: tenant.token,
      body: { calendarId: crypto.randomUUID(), patientId: foreign, start: at(3, 10), origin: 'manual' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: any) => i.path)).toEqual(['origin']);
    const refs = await rejection(book({ calendarId: crypto.randomUUID(), patientId: foreign, start: at(3, 10) }));
    expect(issuePaths(refs).sort()).toEqual(['calendarId', 'patientId']);
    const p = await insertPatient(server, tenant);
    const body: BookingInput = { calendarId: cal.id, patientId: p, start: at(3, 10), origin: 'bot' };
    // Our own key: the client keeps a key the caller set.
    const first = await book(body, api, { 'Idempotency-Key': 'book-1' });
    const again = await book(body, api, { 'Idempotency-Key': 'book-1' });
    expect(first.response.status).toBe(201);
    expect(again.response.status).toBe(201);
    expect(again.data.id).toBe(first.data.id);
  });
});

describe('booking visibility', () => {
  it('refuses a calendar of a facility the key does not see, and an erased patient', async () => {
    const cal = await makeCalendar(server, tenant);
    const p = await insertPatient(server, tenant, tenant.facilityIds[1]);
    const limited = await server.factories.key(tenant.clinicId, ['appointments:write', 'appointments:read'], [tenant.facilityIds[1]]);
    const limitedApi = server.api(limited.token);
    const res = await rejection(book({ calendarId: cal.id, patientId: p, start: at(3, 10) }, limitedApi));
    expect(res.status).toBe(400);
    expect(issuePaths(res)).toEqual(['calendarId']);
    await expect(availability(cal.id, undefined, limitedApi)).rejects.toMatchObject({ status: 404 });
    const erased = await insertPatient(server, tenant, tenant.facilityIds[0], { erased_at: new Date() });
    const gone = await rejection(book({ calendarId: cal.id, patientId: erased, start: at(3, 10) }));
    expect(issuePaths(gone)).toEqual(['patientId']);
  });

  it('refuses, for a key limited to some facilities, a patient of a facility it does not see, and names both references when neither is seen', async () => {
    const cal = await makeCalendar(server, tenant);
    const unseen = await insertPatient(server, tenant, tenant.facilityIds[1]);
    const ownFacility = await server.factories.key(tenant.clinicId, ['appointments:write', 'appointments:read'], [tenant.facilityIds[0]]);
    const patientOnly = await rejection(book({ calendarId: cal.id, patientId: unseen, start: at(3, 11) }, server.api(ownFacility.token)));
    expect(patientOnly.status).toBe(400);
    expect(issuePaths(patientOnly)).toEqual(['patientId']);
    // The calendar and this patient are of the first facility; the key sees only the second.
    const ofFirst = await insertPatient(server, tenant, tenant.facilityIds[0]);
    const secondOnly = await server.factories.key(tenant.clinicId, ['appointments:write', 'appointments:read'], [tenant.facilityIds[1]]);
    const neither = await rejection(book({ calendarId: cal.id, patientId: ofFirst, start: at(3, 11) }, server.api(secondOnly.token)));
    expect(issuePaths(neither)).toEqual(['calendarId', 'patientId']);
    const rows = await server.ctx.db.selectFrom('appointments').select('id').where('calendar_id', '=', cal.id).execute();
    expect(rows).toHaveLength(0);
  });
});

describe('reschedule and cancel through the API', () => {
  it('moves to a free slot with appointment.rescheduled, and refuses inside the cancellation notice', async () => {
    const cal = await makeCalendar(server, tenant, { cancellationNoticeMinutes: 24 * 60 });
    const p = await insertPatient(server, tenant);
    const booked = (await book({ calendarId: cal.id, patientId: p, start: at(5, 10) })).data;
    const moved = await reschedule(booked.id, at(5, 11), { 'If-Match': '"1"' });
    expect(moved.response.status).toBe(200);
    expect(moved.data).toMatchObject({ start: at(5, 11), end: at(5, 11, 30) });
    expect(moved.response.headers.get('etag')).toBe('"2"');
    const ev = await server.ctx.db.selectFrom('events').selectAll().where('type', '=', 'appointment.rescheduled').execute();
    expect(ev.find((e) => (e.data as any).id === booked.id)!.data).toMatchObject({
      startTime: at(5, 11),
      previous: { startTime: at(5, 10), endTime: at(5, 10, 30) },
    });
    await expect(reschedule(booked.id, at(5, 12), { 'If-Match': '"1"' })).rejects.toMatchObject({ details: { reason: 'version_mismatch' } });

    const soon = await book({
      calendarId: cal.id,
      patientId: p,
      start: new Date(Math.ceil((Date.now() + 3 * 3_600_000) / 1_800_000) * 1_800_000).toISOString(),
    });
    expect(soon.response.status).toBe(201);
    await expect(cancel(soon.data.id)).rejects.toMatchObject({ status: 403, details: { reason: 'cancellation_notice' } });
    await expect(reschedule(soon.data.id, at(6, 10))).rejects.toMatchObject({ details: { reason: 'cancellation_notice' } });

    const cancelled = await cancel(moved.data.id);
    expect(cancelled.response.status).toBe(200);
    expect(cancelled.data.status).toBe('cancelled');
    const cancelEvents = await server.ctx.db
      .selectFrom('events')
      .selectAll()
      .where('type', '=', 'appointment.cancelled')
      .where('clinic_id', '=', tenant.clinicId)
      .execute();
    expect(cancelEvents.map((e) => (e.data as any).id)).toContain(moved.data.id);
    await expect(cancel(moved.data.id)).rejects.toMatchObject({ status: 409, details: { reason: 'invalid_transition' } });
  });

  it('refuses appointments outside any calendar and taken target slots', async () => {
    const cal = await makeCalendar(server, tenant);
    const p = await insertPatient(server, tenant);
    const manual = await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/appointments`, { patientId: p, start: at(7, 9), end: at(7, 10) });
    await expect(cancel(manual.body.id)).rejects.toMatchObject({ status: 403, details: { reason: 'outside_calendar' } });
    const a = (await book({ calendarId: cal.id, patientId: p, start: at(7, 10) })).data;
    await book({ calendarId: cal.id, patientId: p, start: at(7, 11) });
    await expect(reschedule(a.id, at(7, 11))).rejects.toMatchObject({ status: 409, details: { reason: 'slot_taken' } });
    // Moving within its own time is allowed (the appointment does not block itself).
    expect((await reschedule(a.id, at(7, 10))).response.status).toBe(200);
  });
});

describe.skipIf(ENGINE !== 'postgres')('the schedule lock (PostgreSQL only: PGlite has one session)', () => {
  // Parallel writes of one doctor's time wait for each other's commit instead of meeting in the
  // overlap constraint's check, where PostgreSQL can deadlock them (each loser a 500 after 1 s).
  it('makes every write of a doctor’s time wait while another transaction holds that doctor’s schedule', async () => {
    const cal = await makeCalendar(server, tenant);
    const [patient, other] = await Promise.all([insertPatient(server, tenant), insertPatient(server, tenant)]);
    let releaseLock!: () => void;
    const held = new Promise<void>((resolve) => (releaseLock = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = server.ctx.db.transaction().execute(async (trx) => {
      await sql`SELECT lock_schedules(ARRAY[${cal.doctorIds[0]!}]::uuid[])`.execute(trx);
      locked();
      await held;
    });
    await isLocked;
    const answered: string[] = [];
    const note =
      <T>(name: string) =>
      (r: T) => {
        answered.push(name);
        return r;
      };
    // A booking through the API and a back-office creation: two writers, one trigger.
    const booking = book({ calendarId: cal.id, patientId: patient, start: at(7, 9) }).then(note('booking'));
    const created = server
      .admin('POST', `/admin/v1/clinics/${tenant.clinicId}/appointments`, {
        patientId: other,
        doctorId: cal.doctorIds[0],
        start: at(7, 11),
        end: at(7, 11, 30),
      })
      .then(note('back office'));
    await new Promise((r) => setTimeout(r, 300));
    expect(answered).toEqual([]);
    releaseLock();
    await holder;
    expect((await booking).response.status).toBe(201);
    expect((await created).status).toBe(201);
  });
});

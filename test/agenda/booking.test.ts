import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../helpers/factories.js';
import { ENGINE, startTestServer, type TestServer } from '../helpers/server.js';
import { sql } from 'kysely';
import { localToUtc } from '../../src/modules/calendars/timezone.js';
import { at, insertPatient, makeCalendar } from './helpers.js';

let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());

const q = (from: string, to: string) => `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;

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
    const res = await server.call('GET', `/v1/calendars/${cal.id}/availability?${q(from, to)}`, { token: tenant.token });
    expect(res.status, res.text).toBe(200);
    const localTimes = res.body.data.map((s: any) =>
      new Intl.DateTimeFormat('it-IT', { timeZone: 'Europe/Rome', hour: '2-digit', minute: '2-digit' }).format(new Date(s.start)),
    );
    expect(localTimes).toEqual(['09:00', '09:30', '10:00', '14:00', '14:30']);
    expect(res.body.data[0]).toEqual({
      start: res.body.data[0].start,
      end: new Date(Date.parse(res.body.data[0].start) + 1_800_000).toISOString(),
      doctorId: cal.doctorIds[0],
      chairId: cal.chairIds[0],
      localDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      localTime: '09:00',
      partOfDay: 'morning',
      label: expect.stringMatching(/ alle 9:00$/),
    });
    expect(res.body.window).toEqual({ from, to });

    // The doctor is busy 09:15-09:45 (an appointment outside the calendar): 09:00 and 09:30 go.
    const p = await insertPatient(server, tenant);
    const nine = res.body.data[0].start;
    const busy = await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/appointments`, {
      patientId: p,
      start: new Date(Date.parse(nine) + 900_000).toISOString(),
      end: new Date(Date.parse(nine) + 2_700_000).toISOString(),
      doctorId: cal.doctorIds[0],
    });
    expect(busy.status).toBe(201);
    // The chair is busy at 14:00.
    const two = res.body.data[3].start;
    await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/appointments`, {
      patientId: p,
      start: two,
      end: new Date(Date.parse(two) + 1_800_000).toISOString(),
      chairId: cal.chairIds[0],
    });
    const after = await server.call('GET', `/v1/calendars/${cal.id}/availability?${q(from, to)}`, { token: tenant.token });
    expect(after.body.data.map((s: any) => s.start)).toEqual([res.body.data[2].start, res.body.data[4].start]);
  });

  it('answers data [] when nothing is free and window null when the rules leave nothing to search', async () => {
    const cal = await makeCalendar(server, tenant, { horizonDays: 10, minNoticeMinutes: 120, workingHours: {} });
    const none = await server.call('GET', `/v1/calendars/${cal.id}/availability?${q(at(2, 0), at(3, 0))}`, { token: tenant.token });
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual([]);
    expect(none.body.window).not.toBeNull();
    const past = await server.call('GET', `/v1/calendars/${cal.id}/availability?${q(at(20, 0), at(22, 0))}`, { token: tenant.token });
    expect(past.body).toEqual({ calendarId: cal.id, slotMinutes: 30, window: null, data: [], emptyReason: 'beyond_horizon', nextAvailable: null });
    const notice = await server.call(
      'GET',
      `/v1/calendars/${cal.id}/availability?${q(new Date(Date.now() - 3_600_000).toISOString(), new Date(Date.now() + 3_600_000).toISOString())}`,
      { token: tenant.token },
    );
    expect(notice.body.window).toBeNull();
  });

  it('refuses a bad window naming the fields', async () => {
    const cal = await makeCalendar(server, tenant);
    const backwards = await server.call('GET', `/v1/calendars/${cal.id}/availability?${q(at(3, 0), at(2, 0))}`, { token: tenant.token });
    expect(backwards.status).toBe(400);
    expect(backwards.body.error.details.issues.map((i: any) => i.path)).toEqual(['to']);
    const long = await server.call('GET', `/v1/calendars/${cal.id}/availability?${q(at(1, 0), at(40, 0))}`, { token: tenant.token });
    expect(long.body.error.details.issues.map((i: any) => i.path)).toEqual(['to']);
    const bad = await server.call('GET', `/v1/calendars/${cal.id}/availability?from=yesterday&to=2026-02-30T00:00Z`, { token: tenant.token });
    expect(bad.body.error.details.issues.map((i: any) => i.path).sort()).toEqual(['from', 'to']);
  });
});

describe('POST /v1/appointments (booking)', () => {
  it('books a free slot with the caller’s origin, and records appointment.created', async () => {
    const cal = await makeCalendar(server, tenant, { chairs: 1 });
    const p = await insertPatient(server, tenant);
    const res = await server.call('POST', '/v1/appointments', {
      token: tenant.token,
      body: { calendarId: cal.id, patientId: p, start: at(4, 10), origin: 'voice', reason: 'controllo' },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('etag')).toBe('"1"');
    expect(res.body).toMatchObject({
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
    expect(e.some((x) => (x.data as any).id === res.body.id && (x.data as any).origin === 'voice')).toBe(true);
  });

  it('answers 409 no_availability slot_taken with the nearest alternatives, and outside_availability off the grid', async () => {
    const cal = await makeCalendar(server, tenant);
    const p = await insertPatient(server, tenant);
    expect((await server.call('POST', '/v1/appointments', { token: tenant.token, body: { calendarId: cal.id, patientId: p, start: at(5, 10) } })).status).toBe(
      201,
    );
    const taken = await server.call('POST', '/v1/appointments', { token: tenant.token, body: { calendarId: cal.id, patientId: p, start: at(5, 10) } });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('no_availability');
    expect(taken.body.error.details.reason).toBe('slot_taken');
    const alts = taken.body.error.details.alternatives.map((s: any) => s.start);
    expect(alts).toHaveLength(5);
    expect(alts).toContain(at(5, 9, 30));
    expect(alts).toContain(at(5, 10, 30));
    expect(alts).not.toContain(at(5, 10));
    const off = await server.call('POST', '/v1/appointments', { token: tenant.token, body: { calendarId: cal.id, patientId: p, start: at(5, 10, 10) } });
    expect(off.body.error.details.reason).toBe('outside_availability');
    const far = await server.call('POST', '/v1/appointments', { token: tenant.token, body: { calendarId: cal.id, patientId: p, start: at(90, 10) } });
    expect(far.body.error.details).toEqual({ reason: 'outside_availability', alternatives: [] });
  });

  it('lets exactly one of 20 parallel bookings of one slot win', async () => {
    const cal = await makeCalendar(server, tenant);
    const patients = await Promise.all(Array.from({ length: 20 }, () => insertPatient(server, tenant)));
    const results = await Promise.all(
      patients.map((p) => server.call('POST', '/v1/appointments', { token: tenant.token, body: { calendarId: cal.id, patientId: p, start: at(6, 15) } })),
    );
    const statuses = results.map((r) => r.status).sort();
    const answers = JSON.stringify(results.map((r) => [r.status, r.body?.error?.code]));
    expect(
      statuses.filter((s) => s === 201),
      answers,
    ).toHaveLength(1);
    expect(
      statuses.filter((s) => s === 409),
      answers,
    ).toHaveLength(19);
    for (const r of results.filter((r) => r.status === 409)) expect(r.body.error.details.reason).toBe('slot_taken');
    const rows = await server.ctx.db.selectFrom('appointments').select('id').where('calendar_id', '=', cal.id).execute();
    expect(rows).toHaveLength(1);
  });

  it('refuses unknown references naming them, and honours Idempotency-Key', async () => {
    const cal = await makeCalendar(server, tenant);
    const other = await server.factories.tenant();
    const foreign = await insertPatient(server, other);
    const bad = await server.call('POST', '/v1/appointments', {
      token: tenant.token,
      body: { calendarId: crypto.randomUUID(), patientId: foreign, start: at(3, 10), origin: 'manual' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: any) => i.path)).toEqual(['origin']);
    const refs = await server.call('POST', '/v1/appointments', {
      token: tenant.token,
      body: { calendarId: crypto.randomUUID(), patientId: foreign, start: at(3, 10) },
    });
    expect(refs.body.error.details.issues.map((i: any) => i.path).sort()).toEqual(['calendarId', 'patientId']);
    const p = await insertPatient(server, tenant);
    const body = { calendarId: cal.id, patientId: p, start: at(3, 10), origin: 'bot' };
    const first = await server.call('POST', '/v1/appointments', { token: tenant.token, body, headers: { 'idempotency-key': 'book-1' } });
    const again = await server.call('POST', '/v1/appointments', { token: tenant.token, body, headers: { 'idempotency-key': 'book-1' } });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
  });
});

describe('booking visibility', () => {
  it('refuses a calendar of a facility the key does not see, and an erased patient', async () => {
    const cal = await makeCalendar(server, tenant);
    const p = await insertPatient(server, tenant, tenant.facilityIds[1]);
    const limited = await server.factories.key(tenant.clinicId, ['appointments:write', 'appointments:read'], [tenant.facilityIds[1]]);
    const res = await server.call('POST', '/v1/appointments', { token: limited.token, body: { calendarId: cal.id, patientId: p, start: at(3, 10) } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues.map((i: any) => i.path)).toEqual(['calendarId']);
    expect((await server.call('GET', `/v1/calendars/${cal.id}/availability`, { token: limited.token })).status).toBe(404);
    const erased = await insertPatient(server, tenant, tenant.facilityIds[0], { erased_at: new Date() });
    const gone = await server.call('POST', '/v1/appointments', { token: tenant.token, body: { calendarId: cal.id, patientId: erased, start: at(3, 10) } });
    expect(gone.body.error.details.issues.map((i: any) => i.path)).toEqual(['patientId']);
  });
});

describe('reschedule and cancel through the API', () => {
  it('moves to a free slot with appointment.rescheduled, and refuses inside the cancellation notice', async () => {
    const cal = await makeCalendar(server, tenant, { cancellationNoticeMinutes: 24 * 60 });
    const p = await insertPatient(server, tenant);
    const booked = await server.call('POST', '/v1/appointments', { token: tenant.token, body: { calendarId: cal.id, patientId: p, start: at(5, 10) } });
    const moved = await server.call('PATCH', `/v1/appointments/${booked.body.id}`, {
      token: tenant.token,
      body: { start: at(5, 11) },
      headers: { 'if-match': '"1"' },
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({ start: at(5, 11), end: at(5, 11, 30) });
    expect(moved.headers.get('etag')).toBe('"2"');
    const ev = await server.ctx.db.selectFrom('events').selectAll().where('type', '=', 'appointment.rescheduled').execute();
    expect(ev.find((e) => (e.data as any).id === booked.body.id)!.data).toMatchObject({
      startTime: at(5, 11),
      previous: { startTime: at(5, 10), endTime: at(5, 10, 30) },
    });
    const stale = await server.call('PATCH', `/v1/appointments/${booked.body.id}`, {
      token: tenant.token,
      body: { start: at(5, 12) },
      headers: { 'if-match': '"1"' },
    });
    expect(stale.body.error.details.reason).toBe('version_mismatch');

    const soon = await server.call('POST', '/v1/appointments', {
      token: tenant.token,
      body: { calendarId: cal.id, patientId: p, start: new Date(Math.ceil((Date.now() + 3 * 3_600_000) / 1_800_000) * 1_800_000).toISOString() },
    });
    expect(soon.status, soon.text).toBe(201);
    const late = await server.call('POST', `/v1/appointments/${soon.body.id}/cancel`, { token: tenant.token });
    expect(late.status).toBe(403);
    expect(late.body.error.details.reason).toBe('cancellation_notice');
    const lateMove = await server.call('PATCH', `/v1/appointments/${soon.body.id}`, { token: tenant.token, body: { start: at(6, 10) } });
    expect(lateMove.body.error.details.reason).toBe('cancellation_notice');

    const cancelled = await server.call('POST', `/v1/appointments/${moved.body.id}/cancel`, { token: tenant.token });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    const cancelEvents = await server.ctx.db
      .selectFrom('events')
      .selectAll()
      .where('type', '=', 'appointment.cancelled')
      .where('clinic_id', '=', tenant.clinicId)
      .execute();
    expect(cancelEvents.map((e) => (e.data as any).id)).toContain(moved.body.id);
    const again = await server.call('POST', `/v1/appointments/${moved.body.id}/cancel`, { token: tenant.token });
    expect(again.status).toBe(409);
    expect(again.body.error.details.reason).toBe('invalid_transition');
  });

  it('refuses appointments outside any calendar and taken target slots', async () => {
    const cal = await makeCalendar(server, tenant);
    const p = await insertPatient(server, tenant);
    const manual = await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/appointments`, { patientId: p, start: at(7, 9), end: at(7, 10) });
    const refused = await server.call('POST', `/v1/appointments/${manual.body.id}/cancel`, { token: tenant.token });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details.reason).toBe('outside_calendar');
    const a = await server.call('POST', '/v1/appointments', { token: tenant.token, body: { calendarId: cal.id, patientId: p, start: at(7, 10) } });
    await server.call('POST', '/v1/appointments', { token: tenant.token, body: { calendarId: cal.id, patientId: p, start: at(7, 11) } });
    const clash = await server.call('PATCH', `/v1/appointments/${a.body.id}`, { token: tenant.token, body: { start: at(7, 11) } });
    expect(clash.status).toBe(409);
    expect(clash.body.error.details.reason).toBe('slot_taken');
    // Moving within its own time is allowed (the appointment does not block itself).
    expect((await server.call('PATCH', `/v1/appointments/${a.body.id}`, { token: tenant.token, body: { start: at(7, 10) } })).status).toBe(200);
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
    const note = (name: string) => (r: { status: number }) => {
      answered.push(name);
      return r;
    };
    // A booking through the API and a back-office creation: two writers, one trigger.
    const booking = server
      .call('POST', '/v1/appointments', { token: tenant.token, body: { calendarId: cal.id, patientId: patient, start: at(7, 9) } })
      .then(note('booking'));
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
    expect((await booking).status).toBe(201);
    expect((await created).status).toBe(201);
  });
});

/** The agenda's weekly figures: what each counts, weeks in the clinic's zone (clock changes), bad input, facilities. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { insertPatient } from '../../helpers/seed.js';
import { figuresOf } from '../../../src/modules/stats/service.js';

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
});
afterAll(() => server.close());

const stats = (query: string, token = t.token) => server.call('GET', `/v1/stats/agenda?${query}`, { token });

/** An appointment written as the clinic's history holds it (status as given), `minutes` long. */
async function appointment(tenant: Tenant, start: string, status: string, extra: { minutes?: number; facility?: number; id?: string } = {}) {
  const patientId = await insertPatient(server, tenant);
  const id = extra.id ?? crypto.randomUUID();
  const begin = new Date(start);
  await server.ctx.db
    .insertInto('appointments')
    .values({
      id,
      clinic_id: tenant.clinicId,
      patient_id: patientId,
      facility_id: tenant.facilityIds[extra.facility ?? 0]!,
      start_at: begin,
      end_at: new Date(begin.getTime() + (extra.minutes ?? 30) * 60_000),
      status,
      origin: 'manual',
    })
    .execute();
  return { id, patientId };
}

describe('GET /v1/stats/agenda', () => {
  it('counts each figure in the week of its local time, shares of the span’s own counts', async () => {
    const c = await server.factories.tenant();
    // Week of Monday 2 March 2026 (Rome, UTC+1): Monday 00:30 local is Sunday 23:30 UTC.
    await appointment(c, '2026-03-01T23:30:00Z', 'completed');
    await appointment(c, '2026-03-03T09:00:00Z', 'confirmed');
    // Confirmed, then completed: it stays confirmed (the database keeps when it first was).
    const confirmedBefore = await appointment(c, '2026-03-03T10:00:00Z', 'confirmed');
    await server.ctx.db.updateTable('appointments').set({ status: 'completed' }).where('id', '=', confirmedBefore.id).execute();
    await appointment(c, '2026-03-04T09:00:00Z', 'no_show');
    await appointment(c, '2026-03-04T10:00:00Z', 'scheduled');
    await appointment(c, '2026-03-05T09:00:00Z', 'cancelled', { minutes: 90 });
    await appointment(c, '2026-03-05T11:00:00Z', 'cancelled', { minutes: 30 });
    await appointment(c, '2026-03-06T09:00:00Z', 'draft');
    // Sunday 8 March 23:30 local is Sunday 22:30 UTC: still this week.
    await appointment(c, '2026-03-08T22:30:00Z', 'scheduled');
    // Monday 9 March 00:30 local (Sunday 23:30 UTC): the next week.
    await appointment(c, '2026-03-08T23:30:00Z', 'no_show');
    const p = await insertPatient(server, c);
    const entry = crypto.randomUUID();
    const cal = await server.ctx.db
      .insertInto('calendars')
      .values({
        id: crypto.randomUUID(),
        clinic_id: c.clinicId,
        facility_id: c.facilityIds[0]!,
        name: 'Igiene',
        slot_minutes: 30,
        working_hours: {},
        doctor_ids: [c.doctorId],
      } as never)
      .returning('id')
      .executeTakeFirstOrThrow();
    await server.ctx.db
      .insertInto('waitlist_entries')
      .values({
        id: entry,
        clinic_id: c.clinicId,
        facility_id: c.facilityIds[0]!,
        calendar_id: cal.id,
        patient_id: p,
        earliest: '2026-03-01T00:00:00Z',
        latest: '2026-03-31T00:00:00Z',
        channel: 'phone',
        status: 'booked',
      })
      .execute();
    await server.ctx.db
      .insertInto('waitlist_offers')
      .values({
        id: crypto.randomUUID(),
        clinic_id: c.clinicId,
        facility_id: c.facilityIds[0]!,
        calendar_id: cal.id,
        entry_id: entry,
        start_at: '2026-03-05T09:00:00Z',
        end_at: '2026-03-05T10:00:00Z',
        expires_at: '2026-03-04T09:30:00Z',
        status: 'accepted',
      })
      .execute();
    for (const [outcome, at] of [
      ['no_answer', '2026-03-02T08:00:00Z'],
      ['booked', '2026-03-02T09:00:00Z'],
      ['booked', '2026-03-09T09:00:00Z'],
    ] as const)
      await server.ctx.db
        .insertInto('recall_attempts')
        .values({ id: crypto.randomUUID(), clinic_id: c.clinicId, facility_id: c.facilityIds[0]!, patient_id: p, channel: 'phone', outcome, created_at: at })
        .execute();

    const res = await stats('from=2026-03-02&to=2026-03-16', c.token);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ timeZone: 'Europe/Rome', from: '2026-03-02', to: '2026-03-16', facilityId: null });
    const [first, second] = res.body.weeks;
    expect(res.body.weeks).toHaveLength(2);
    expect(first).toEqual({
      weekStart: '2026-03-02',
      start: '2026-03-01T23:00:00.000Z',
      end: '2026-03-08T23:00:00.000Z',
      hours: 168,
      appointments: 6,
      confirmed: 2,
      confirmedShare: 0.3333,
      noShows: 1,
      noShowRate: 0.3333,
      cancellations: 2,
      cancelledHours: 2,
      refilled: 1,
      refilledShare: 0.5,
      recoveredHours: 1,
      recallsAttempted: 2,
      recallsBooked: 1,
    });
    expect(second).toMatchObject({
      weekStart: '2026-03-09',
      appointments: 1,
      noShows: 1,
      noShowRate: 1,
      cancellations: 0,
      refilledShare: null,
      recallsBooked: 1,
    });
    expect(res.body.totals).toMatchObject({ appointments: 7, noShows: 2, noShowRate: 0.5, recallsAttempted: 3, recallsBooked: 2, confirmedShare: 0.2857 });
  });

  it('counts an appointment ever confirmed through the API, after its visit and once its event is no longer kept', async () => {
    const c = await server.factories.tenant();
    const visit = await appointment(c, '2026-04-07T09:00:00Z', 'scheduled');
    const never = await appointment(c, '2026-04-07T10:00:00Z', 'scheduled');
    for (const status of ['confirmed', 'checked_in', 'in_progress', 'completed']) {
      const res = await server.admin('POST', `/admin/v1/clinics/${c.clinicId}/appointments/${visit.id}/status`, { status });
      expect(res.status, res.text).toBe(200);
    }
    expect((await server.admin('POST', `/admin/v1/clinics/${c.clinicId}/appointments/${never.id}/status`, { status: 'no_show' })).status).toBe(200);
    // The outbox's retention has removed the confirmation event.
    await server.ctx.db.deleteFrom('events').where('clinic_id', '=', c.clinicId).where('type', '=', 'appointment.confirmed').execute();
    const res = await stats('from=2026-04-06&to=2026-04-13', c.token);
    expect(res.status, res.text).toBe(200);
    expect(res.body.totals).toMatchObject({ appointments: 2, confirmed: 1, confirmedShare: 0.5, noShows: 1 });
  });

  it('reads weeks in the clinic’s zone across clock changes, clipping the first and last to the range', async () => {
    const c = await server.factories.tenant();
    // Rome moves to summer time on Sunday 29 March 2026: that week lasts 167 hours.
    await appointment(c, '2026-03-29T21:30:00Z', 'completed'); // Sunday 23:30 summer time: the week of 23 March
    await appointment(c, '2026-03-29T22:30:00Z', 'completed'); // Monday 30 March 00:30: the next week
    const res = await stats('from=2026-03-25&to=2026-04-01', c.token);
    expect(res.status, res.text).toBe(200);
    expect(res.body.weeks.map((w: Record<string, unknown>) => [w.weekStart, w.start, w.end, w.hours, w.appointments])).toEqual([
      ['2026-03-23', '2026-03-24T23:00:00.000Z', '2026-03-29T22:00:00.000Z', 119, 1],
      ['2026-03-30', '2026-03-29T22:00:00.000Z', '2026-03-31T22:00:00.000Z', 48, 1],
    ]);
    const whole = await stats('from=2026-03-23&to=2026-04-06', c.token);
    expect(whole.body.weeks.map((w: { hours: number }) => w.hours)).toEqual([167, 168]);
    const autumn = await stats('from=2026-10-19&to=2026-11-02', c.token);
    expect(autumn.body.weeks.map((w: { hours: number }) => w.hours)).toEqual([169, 168]);
  });

  it('names every wrong field (400), with no 500 for any of them', async () => {
    const issues = async (query: string) => {
      const res = await stats(query);
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      return res.body.error.details.issues.map((i: { path: string }) => i.path).sort();
    };
    expect(await issues('')).toEqual(['from', 'to']);
    expect(await issues('from=2026-02-30&to=tomorrow&facilityId=nope')).toEqual(['facilityId', 'from', 'to']);
    expect(await issues('from=2026-03-09&to=2026-03-09')).toEqual(['to']);
    expect(await issues('from=2026-03-09&to=2026-03-02')).toEqual(['to']);
    expect(await issues('from=2026-01-01&to=2027-01-08')).toEqual(['to']); // 372 days
    expect((await stats('from=2026-01-01&to=2027-01-07')).status).toBe(200); // 371 days: a year and a week
    expect(await issues('from=2026-03-02&to=2026-03-09&extra=1')).toEqual(['extra']);
  });

  it('counts one facility when asked, and answers 404 for a facility the key does not see', async () => {
    const c = await server.factories.tenant();
    await appointment(c, '2026-05-05T09:00:00Z', 'completed', { facility: 0 });
    await appointment(c, '2026-05-05T10:00:00Z', 'completed', { facility: 1 });
    await appointment(c, '2026-05-05T11:00:00Z', 'no_show', { facility: 1 });
    const range = 'from=2026-05-04&to=2026-05-11';
    expect((await stats(range, c.token)).body.totals.appointments).toBe(3);
    const one = await stats(`${range}&facilityId=${c.facilityIds[1]!.toUpperCase()}`, c.token);
    expect(one.status, one.text).toBe(200);
    expect(one.body).toMatchObject({ facilityId: c.facilityIds[1], totals: { appointments: 2, noShows: 1 } });
    const limited = await server.factories.key(c.clinicId, ['appointments:read'], [c.facilityIds[0]!]);
    expect((await stats(range, limited.token)).body.totals.appointments).toBe(1);
    expect((await stats(`${range}&facilityId=${c.facilityIds[1]}`, limited.token)).status).toBe(404);
    expect((await stats(`${range}&facilityId=${crypto.randomUUID()}`, c.token)).status).toBe(404);
    expect((await stats(`${range}&facilityId=${t.facilityIds[0]}`, c.token)).status).toBe(404); // another clinic's
  });

  it('computes shares from the counts, null when there is nothing to divide by', () => {
    const zero = {
      appointments: 0,
      confirmed: 0,
      no_shows: 0,
      attended: 0,
      cancellations: 0,
      cancelled_seconds: 0,
      refilled: 0,
      recovered_seconds: 0,
      recalls_attempted: 0,
      recalls_booked: 0,
    };
    expect(figuresOf(zero)).toMatchObject({ confirmedShare: null, noShowRate: null, refilledShare: null, cancelledHours: 0 });
    expect(figuresOf({ ...zero, cancellations: 3, refilled: 1, cancelled_seconds: 5400 })).toMatchObject({ refilledShare: 0.3333, cancelledHours: 1.5 });
  });
});

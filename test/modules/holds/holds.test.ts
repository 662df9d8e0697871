/** Slot holds: they hide the time from everyone, race-safely, and book with holdId. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../../src/modules/auth/scopes.js';
import { createApiKey } from '../../../src/modules/auth/keys-service.js';
import type { OperationTypes } from '../../../packages/client/src/index.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { at, insertPatient, makeCalendar } from '../../helpers/seed.js';
import { createAppointment } from '../../../src/modules/scheduling/agenda.js';

let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());

type HoldInput = OperationTypes['createSlotHold']['requestBody']['content']['application/json'];
type BookingInput = OperationTypes['createAppointment']['requestBody']['content']['application/json'];

/** createSlotHold through the non-throwing typed client: `{ data, error, response }`. */
const hold = (calendarId: string, body: HoldInput, token = tenant.token) =>
  server.api(token).raw.POST('/calendars/{id}/holds', { params: { path: { id: calendarId } }, body });
/** createAppointment through the non-throwing typed client. */
const book = (body: BookingInput, token = tenant.token) => server.api(token).raw.POST('/appointments', { body });
const slots = async (calendarId: string, day: number, token = tenant.token) =>
  (await server.api(token).call('getCalendarAvailability', { params: { path: { id: calendarId }, query: { from: at(day, 9), to: at(day, 11) } } })).data;

describe('slot holds', () => {
  it('hides the held time from availability and bookings (409 slot_taken with heldUntil), and books it with holdId', async () => {
    const cal = await makeCalendar(server, tenant);
    const patientId = await insertPatient(server, tenant);
    const start = at(5, 9);
    const before = await slots(cal.id, 5);
    expect(before.map((s) => s.start)).toContain(start);

    const held = await hold(cal.id, { start, holderRef: 'call-1', ttlSeconds: 120 });
    expect(held.response.status, JSON.stringify(held.error)).toBe(201);
    const res = held.data!;
    expect(res).toMatchObject({ calendarId: cal.id, start, doctorId: cal.doctorIds[0], chairId: null, holderRef: 'call-1' });
    const ttl = Date.parse(res.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(100_000);
    expect(ttl).toBeLessThanOrEqual(121_000);

    expect((await slots(cal.id, 5)).map((s) => s.start)).not.toContain(start);
    const other = await server.factories.key(tenant.clinicId, [...SCOPES]);
    const taken = await book({ calendarId: cal.id, patientId, start }, other.token);
    expect(taken.response.status, JSON.stringify(taken.error)).toBe(409);
    expect(taken.error?.error.code).toBe('no_availability');
    expect(taken.error?.error.details).toMatchObject({ reason: 'slot_taken', heldUntil: res.expiresAt });
    expect((taken.error?.error.details?.alternatives as unknown[]).length).toBeGreaterThan(0);
    const taken2 = await hold(cal.id, { start, holderRef: 'call-2' }, other.token);
    expect(taken2.response.status).toBe(409);

    const booked = await book({ holdId: res.id, patientId });
    expect(booked.response.status, JSON.stringify(booked.error)).toBe(201);
    expect(booked.data).toMatchObject({ start, calendarId: cal.id, doctorId: cal.doctorIds[0] });
    // Sent again: the same appointment, 200; for another patient: hold_used.
    const again = await book({ holdId: res.id, patientId });
    expect(again.response.status).toBe(200);
    expect(again.data!.id).toBe(booked.data!.id);
    const otherPatient = await insertPatient(server, tenant);
    const used = await book({ holdId: res.id, patientId: otherPatient });
    expect(used.response.status).toBe(409);
    expect(used.error?.error.details?.reason).toBe('hold_used');
    // Another key cannot use this key's hold.
    const foreign = await book({ holdId: res.id, patientId }, other.token);
    expect(foreign.response.status).toBe(400);
    expect((foreign.error?.error.details?.issues as Array<{ path: string }>).map((i) => i.path)).toEqual(['holdId']);
  });

  it('replaces a hold with the same holderRef, releases with DELETE, and lapses by itself', async () => {
    const cal = await makeCalendar(server, tenant);
    const first = await hold(cal.id, { start: at(6, 9), holderRef: 'call-r' });
    const second = await hold(cal.id, { start: at(6, 10), holderRef: 'call-r' });
    expect(second.response.status).toBe(201);
    const free = (await slots(cal.id, 6)).map((s) => s.start);
    expect(free).toContain(at(6, 9));
    expect(free).not.toContain(at(6, 10));
    const release = (id: string, token = tenant.token) => server.api(token).raw.DELETE('/holds/{id}', { params: { path: { id } } });
    expect((await release(first.data!.id)).response.status).toBe(404);
    const other = await server.factories.key(tenant.clinicId, [...SCOPES]);
    expect((await release(second.data!.id, other.token)).response.status).toBe(404);
    expect((await release(second.data!.id)).response.status).toBe(204);
    expect((await slots(cal.id, 6)).map((s) => s.start)).toContain(at(6, 10));

    // A lapsed hold blocks nothing, and still books its slot while it is free.
    const lapsing = await hold(cal.id, { start: at(6, 9, 30), holderRef: 'call-l', ttlSeconds: 30 });
    await server.ctx.db
      .updateTable('slot_holds')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', lapsing.data!.id)
      .execute();
    expect((await slots(cal.id, 6)).map((s) => s.start)).toContain(at(6, 9, 30));
    const patientId = await insertPatient(server, tenant);
    const booked = await book({ holdId: lapsing.data!.id, patientId });
    expect(booked.response.status, JSON.stringify(booked.error)).toBe(201);
    expect(booked.data!.start).toBe(at(6, 9, 30));
  });

  it('refuses bad input naming every field, and a key beyond 50 live holds with hold_limit, writing nothing', async () => {
    const cal = await makeCalendar(server, tenant, { doctors: 1 });
    // Values outside the contract (not a date-time, under the minimum, empty): raw call.
    const bad = await server.call('POST', `/v1/calendars/${cal.id}/holds`, { token: tenant.token, body: { start: 'domani', ttlSeconds: 5, holderRef: '' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['holderRef', 'start', 'ttlSeconds']);
    const key = await createApiKey(server.ctx.db, tenant.clinicId, { name: 'voce', scopes: [...SCOPES], agent: 'voice_agent' });
    const slot = (i: number) => at(7 + Math.floor(i / 24), i % 24);
    for (let i = 0; i < 50; i++) expect((await hold(cal.id, { start: slot(i), holderRef: `c${i}` }, key.token)).response.status).toBe(201);
    const beyond = await hold(cal.id, { start: slot(50), holderRef: 'c50' }, key.token);
    expect(beyond.response.status).toBe(409);
    expect(beyond.error?.error.details).toMatchObject({ reason: 'hold_limit', limit: 50 });
    const count = await server.ctx.db
      .selectFrom('slot_holds')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('api_key_id', '=', key.id)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(50);
    // Replacing one of its own holds is not a new one.
    expect((await hold(cal.id, { start: slot(51), holderRef: 'c3' }, key.token)).response.status).toBe(201);
  });

  it('books a live hold without reading its time again, and still refuses what changed under it, writing nothing', async () => {
    const cal = await makeCalendar(server, tenant);
    const patientId = await insertPatient(server, tenant);
    const doctorAppointments = async () =>
      server.ctx.db.selectFrom('appointments').select(['id', 'start_at']).where('doctor_id', '=', cal.doctorIds[0]!).execute();

    // The clinic's own agenda does not look at holds: what it enters over the held time meets the
    // overlap constraint at the booking, 409 slot_taken, and the hold stays unused.
    const start = at(9, 9);
    const held = (await hold(cal.id, { start, holderRef: 'agenda-race' })).data!;
    const entered = await createAppointment(server.ctx.db, await server.actor(tenant.clinicId), {
      patientId,
      facilityId: tenant.facilityIds[0],
      doctorId: cal.doctorIds[0],
      start,
      end: new Date(Date.parse(start) + 30 * 60_000).toISOString(),
    });
    const taken = await book({ holdId: held.id, patientId });
    expect(taken.response.status, JSON.stringify(taken.error)).toBe(409);
    expect(taken.error?.error.details?.reason).toBe('slot_taken');
    expect((await doctorAppointments()).map((a) => a.id)).toEqual([entered.id]);
    const kept = await server.ctx.db.selectFrom('slot_holds').select('appointment_id').where('id', '=', held.id).executeTakeFirstOrThrow();
    expect(kept.appointment_id).toBeNull();

    // A calendar switched off after the hold was made: its rules are checked again.
    const later = at(9, 11);
    const held2 = (await hold(cal.id, { start: later, holderRef: 'switched-off' })).data!;
    await server.ctx.db.updateTable('calendars').set({ active: false }).where('id', '=', cal.id).execute();
    const off = await book({ holdId: held2.id, patientId });
    expect(off.response.status, JSON.stringify(off.error)).toBe(409);
    expect(off.error?.error.details?.reason).toBe('outside_availability');
    expect(await doctorAppointments()).toHaveLength(1);

    // Switched on again, the live hold books at its doctor without another look at the time.
    await server.ctx.db.updateTable('calendars').set({ active: true }).where('id', '=', cal.id).execute();
    const booked = await book({ holdId: held2.id, patientId });
    expect(booked.response.status, JSON.stringify(booked.error)).toBe(201);
    expect(booked.data).toMatchObject({ start: later, doctorId: cal.doctorIds[0] });
  });

  it('books a live hold at another doctor of the calendar when the booking names one, reading that doctor’s time', async () => {
    const cal = await makeCalendar(server, tenant, { doctors: 2 });
    const [first, second] = cal.doctorIds as [string, string];
    const patientId = await insertPatient(server, tenant);
    const start = at(10, 9);
    const held = (await hold(cal.id, { start, doctorId: first, holderRef: 'other-doctor' })).data!;
    expect(held.doctorId).toBe(first);
    // The second doctor is busy in the clinic's own agenda: that time is read, and refused.
    const busy = await createAppointment(server.ctx.db, await server.actor(tenant.clinicId), {
      patientId,
      facilityId: tenant.facilityIds[0],
      doctorId: second,
      start,
      end: new Date(Date.parse(start) + 30 * 60_000).toISOString(),
    });
    const refused = await book({ holdId: held.id, patientId, doctorId: second });
    expect(refused.response.status, JSON.stringify(refused.error)).toBe(409);
    expect(refused.error?.error.details?.reason).toBe('slot_taken');
    await server.ctx.db.deleteFrom('appointments').where('id', '=', busy.id).execute();
    const booked = await book({ holdId: held.id, patientId, doctorId: second });
    expect(booked.response.status, JSON.stringify(booked.error)).toBe(201);
    expect(booked.data).toMatchObject({ start, doctorId: second });
  });

  it('lets exactly one of parallel holds and bookings of one slot win', async () => {
    const cal = await makeCalendar(server, tenant, { chairs: 1 });
    const start = at(8, 9);
    const patients = await Promise.all(Array.from({ length: 5 }, () => insertPatient(server, tenant)));
    const results = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => hold(cal.id, { start, holderRef: `race-${i}` })),
      ...patients.map((patientId) => book({ calendarId: cal.id, patientId, start })),
    ]);
    const statuses = results.map((r) => r.response.status);
    expect(
      statuses.filter((s) => s === 201),
      JSON.stringify(statuses),
    ).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(results.length - 1);
  });
});

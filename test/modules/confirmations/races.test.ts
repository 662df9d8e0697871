/**
 * The confirmation loop under concurrency, on both engines: each race ends in one consistent
 * state (the appointment's status, its events, the attempts recorded and the slot's holder agree).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { insertPatient, makeCalendar } from '../../helpers/seed.js';
import { bookAppointment } from '../../../src/modules/scheduling/booking.js';
import { createEntry } from '../../../src/modules/waitlist/service.js';

let server: TestServer;
let tenant: Tenant;
let calendarId: string;
let slot = 0;
const HOUR = 3_600_000;
const ROUNDS = 4;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
  calendarId = (await makeCalendar(server, tenant)).id;
});
afterAll(() => server.close());

/** A booked appointment on its own half hour, two days ahead. */
async function booked() {
  const start = new Date(Math.ceil((Date.now() + 48 * HOUR) / 1_800_000) * 1_800_000 + slot++ * 1_800_000).toISOString();
  const patientId = await insertPatient(server, tenant);
  const row = await bookAppointment(server.ctx.db, await server.actor(tenant.clinicId), { calendarId, patientId, start });
  return { id: row.id, start };
}
const answer = (id: string, channel: string, outcome: string) =>
  server.call('POST', `/v1/appointments/${id}/confirmation-attempts`, { token: tenant.token, body: { channel, outcome } });
const cancel = (id: string) => server.call('POST', `/v1/appointments/${id}/cancel`, { token: tenant.token });
const status = async (id: string) => (await server.ctx.db.selectFrom('appointments').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
const events = async (id: string, type: string) =>
  (await server.ctx.db.selectFrom('events').select('data').where('clinic_id', '=', tenant.clinicId).where('type', '=', type).execute()).filter(
    (e) => (e.data as { id: string }).id === id,
  ).length;
const attempts = async (id: string) =>
  (await server.ctx.db.selectFrom('confirmation_attempts').select('outcome').where('appointment_id', '=', id).orderBy('created_at').execute()).map(
    (a) => a.outcome,
  );

describe('confirmation races', () => {
  it('a confirmation and a cancellation at the same instant: cancelled, with the confirmation recorded only if it came first', async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const a = await booked();
      const [confirmed, cancelled] = await Promise.all([answer(a.id, 'phone', 'confirmed'), cancel(a.id)]);
      expect(cancelled.status, cancelled.text).toBe(200);
      expect(await status(a.id)).toBe('cancelled');
      expect(await events(a.id, 'appointment.cancelled')).toBe(1);
      if (confirmed.status === 201) {
        expect(await events(a.id, 'appointment.confirmed')).toBe(1);
        expect(await attempts(a.id)).toEqual(['confirmed']);
      } else {
        expect(confirmed.status, confirmed.text).toBe(409);
        expect(confirmed.body.error.details.reason).toBe('not_answerable');
        expect(await events(a.id, 'appointment.confirmed')).toBe(0);
        expect(await attempts(a.id)).toEqual([]);
      }
    }
  });

  it('two channels answering for one appointment: one outcome wins, the other applies after it or is refused', async () => {
    for (let i = 0; i < ROUNDS; i++) {
      // Both confirm: confirmed once, one event, two attempts.
      const a = await booked();
      const both = await Promise.all([answer(a.id, 'sms', 'confirmed'), answer(a.id, 'whatsapp', 'confirmed')]);
      expect(both.map((r) => r.status)).toEqual([201, 201]);
      expect(await status(a.id)).toBe('confirmed');
      expect(await events(a.id, 'appointment.confirmed')).toBe(1);
      expect((await attempts(a.id)).sort()).toEqual(['confirmed', 'confirmed']);

      // One confirms, one cancels: cancelled in the end; the confirmation counts only if first.
      const b = await booked();
      const [yes, no] = await Promise.all([answer(b.id, 'sms', 'confirmed'), answer(b.id, 'phone', 'cancel_requested')]);
      expect(no.status, no.text).toBe(201);
      expect(await status(b.id)).toBe('cancelled');
      expect(await events(b.id, 'appointment.cancelled')).toBe(1);
      if (yes.status === 201) expect(await attempts(b.id)).toEqual(['confirmed', 'cancel_requested']);
      else {
        expect(yes.status).toBe(409);
        expect(await attempts(b.id)).toEqual(['cancel_requested']);
      }
      expect(await events(b.id, 'appointment.confirmed')).toBe(yes.status === 201 ? 1 : 0);
    }
  });

  it('a cancellation whose freed slot an inbound caller books while the waitlist is offered it: the slot has one holder', async () => {
    const actor = await server.actor(tenant.clinicId);
    for (let i = 0; i < ROUNDS; i++) {
      const a = await booked();
      const waiting = await insertPatient(server, tenant);
      const entry = await createEntry(server.ctx.db, actor, {
        patientId: waiting,
        calendarId,
        latest: new Date(Date.now() + 10 * 86_400_000).toISOString(),
        channel: 'sms',
      });
      const caller = await insertPatient(server, tenant);
      const [freed, inbound] = await Promise.all([
        answer(a.id, 'sms', 'cancel_requested'),
        server.call('POST', '/v1/appointments', { token: tenant.token, body: { calendarId, patientId: caller, start: a.start } }),
      ]);
      expect(freed.status, freed.text).toBe(201);
      expect(await status(a.id)).toBe('cancelled');
      const offers = await server.ctx.db.selectFrom('waitlist_offers').selectAll().where('entry_id', '=', entry.id).where('status', '=', 'offered').execute();
      const live = await server.ctx.db
        .selectFrom('appointments')
        .select('patient_id')
        .where('clinic_id', '=', tenant.clinicId)
        .where('start_at', '=', new Date(a.start))
        .where('status', 'not in', ['cancelled'])
        .execute();
      // Either the caller was refused (the slot still the patient's, or already held for the
      // waitlist) and the waitlist holds it, or the caller took it and nothing is offered.
      if (inbound.status === 201) {
        expect(live.map((r) => r.patient_id)).toEqual([caller]);
        expect(offers).toEqual([]);
      } else {
        expect(inbound.status, inbound.text).toBe(409);
        expect(live).toEqual([]);
        expect(offers).toHaveLength(1);
        expect(offers[0]!.start_at.toISOString()).toBe(a.start);
      }
      // The entry is done with for the next round.
      await server.ctx.db.deleteFrom('waitlist_offers').where('entry_id', '=', entry.id).execute();
      await server.ctx.db.deleteFrom('waitlist_entries').where('id', '=', entry.id).execute();
    }
  });
});

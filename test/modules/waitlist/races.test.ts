/** The waitlist under parallel requests: one slot is never given twice, one entry never gets two slots. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { at, insertPatient, makeCalendar } from '../../helpers/seed.js';
import { expireOffers } from '../../../src/modules/scheduling/offers.js';
import { addEntry, bookOn, offers } from './helpers.js';

let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());

const cancel = (id: string) => server.call('POST', `/v1/appointments/${id}/cancel`, { token: tenant.token });
const accept = (id: string) => server.call('POST', `/v1/waitlist-offers/${id}/accept`, { token: tenant.token });
const patients = (n: number) => Promise.all(Array.from({ length: n }, () => insertPatient(server, tenant)));

/** Appointments that hold time on the calendar at `start`, and live offers of it. */
async function holders(calendarId: string, start: string) {
  const appointments = await server.ctx.db
    .selectFrom('appointments')
    .select('id')
    .where('calendar_id', '=', calendarId)
    .where('start_at', '=', new Date(start))
    .where('status', 'not in', ['cancelled', 'no_show', 'postponed', 'draft'])
    .execute();
  const live = await server.ctx.db
    .selectFrom('waitlist_offers')
    .select('id')
    .where('calendar_id', '=', calendarId)
    .where('start_at', '=', new Date(start))
    .where('status', '=', 'offered')
    .execute();
  return appointments.length + live.length;
}

describe('waitlist races', () => {
  it('parallel cancellations give each entry one offer at most, and each slot to one entry', async () => {
    const cal = await makeCalendar(server, tenant);
    const people = await patients(6);
    const booked = await Promise.all(people.slice(0, 4).map((p, i) => bookOn(server, tenant, cal.id, p, at(6, 9 + i))));
    const entries = [await addEntry(server, tenant, { patientId: people[4], calendarId: cal.id, latest: at(20, 18) })];
    entries.push(await addEntry(server, tenant, { patientId: people[5], calendarId: cal.id, latest: at(20, 18) }));
    const answers = await Promise.all(booked.map((b) => cancel(b.id)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const live = await offers(server, tenant, `&calendarId=${cal.id}&status=offered`);
    expect(live.map((o) => o.entryId).sort()).toEqual(entries.map((e) => e.id).sort());
    expect(new Set(live.map((o) => o.start)).size).toBe(2);
  });

  it('parallel accepts of one offer book one appointment, answered to all', async () => {
    const cal = await makeCalendar(server, tenant);
    const [a, b] = await patients(2);
    const booked = await bookOn(server, tenant, cal.id, a!, at(7, 9));
    await addEntry(server, tenant, { patientId: b, calendarId: cal.id, latest: at(20, 18) });
    await cancel(booked.id);
    const [offer] = await offers(server, tenant, `&calendarId=${cal.id}`);
    const answers = await Promise.all(Array.from({ length: 6 }, () => accept(offer!.id)));
    expect(answers.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(new Set(answers.map((r) => r.body.appointmentId)).size).toBe(1);
    expect(await holders(cal.id, at(7, 9))).toBe(1);
  });

  it('an entry holding a lapsed offer and a live one books only one of them', async () => {
    const cal = await makeCalendar(server, tenant);
    const [a, b, c] = await patients(3);
    const first = await bookOn(server, tenant, cal.id, a!, at(8, 9));
    const second = await bookOn(server, tenant, cal.id, b!, at(8, 10));
    const entry = await addEntry(server, tenant, { patientId: c, calendarId: cal.id, latest: at(20, 18) });
    await cancel(first.id);
    const [old] = await offers(server, tenant, `&entryId=${entry.id}`);
    await server.ctx.db
      .updateTable('waitlist_offers')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', old!.id)
      .execute();
    await expireOffers(server.ctx.db);
    await cancel(second.id);
    const fresh = (await offers(server, tenant, `&entryId=${entry.id}&status=offered`))[0]!;
    expect(fresh.start).toBe(at(8, 10));
    const answers = await Promise.all([accept(old!.id), accept(fresh.id)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(answers.find((r) => r.status === 409)!.body.error.details.reason).toBe('entry_closed');
    const booked = await server.ctx.db.selectFrom('appointments').select('id').where('patient_id', '=', c!).where('status', '=', 'scheduled').execute();
    expect(booked).toHaveLength(1);
  });

  it('a slot freed while inbound callers book it goes to exactly one of them', async () => {
    for (let round = 0; round < 3; round++) {
      const cal = await makeCalendar(server, tenant);
      const people = await patients(5);
      const start = at(9, 9 + round);
      const booked = await bookOn(server, tenant, cal.id, people[0]!, start);
      await addEntry(server, tenant, { patientId: people[1], calendarId: cal.id, latest: at(20, 18) });
      const callers = people
        .slice(2)
        .map((p) => server.call('POST', '/v1/appointments', { token: tenant.token, body: { calendarId: cal.id, patientId: p, start } }));
      const [cancelled, ...answers] = await Promise.all([cancel(booked.id), ...callers]);
      expect(cancelled.status).toBe(200);
      expect(answers.every((r) => r.status === 201 || r.status === 409)).toBe(true);
      expect(await holders(cal.id, start)).toBe(1);
    }
  });
});

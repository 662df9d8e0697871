/**
 * What a booking conflicts with: the time of its doctor and of its chair, whichever calendar
 * took it. A calendar is a way to book people and chairs, not a resource: two calendars that
 * share a doctor or a chair share that doctor's or chair's time, and two that share nothing
 * book the same instant each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refused } from '../../helpers/refused.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { ALL_DAY, at, insertPatient, makeCalendar } from '../../helpers/seed.js';
import { createCalendar } from '../../../src/modules/calendars/service.js';
import { createChair } from '../../../src/modules/chairs/service.js';
import { createDoctor } from '../../../src/modules/doctors/service.js';
import type { DentalClinicClient } from '../../../packages/client/src/index.js';

let server: TestServer;
let tenant: Tenant;
let api: DentalClinicClient;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
  api = server.api(tenant.token);
});
afterAll(() => server.close());

/** A second calendar over these doctors and chairs, open all day in 30-minute slots. */
async function calendarOver(name: string, doctorIds: string[], chairIds: string[]): Promise<string> {
  const cal = await createCalendar(server.ctx.db, await server.actor(tenant.clinicId), {
    facilityId: tenant.facilityIds[0]!,
    name,
    slotMinutes: 30,
    workingHours: ALL_DAY,
    doctorIds,
    chairIds,
  });
  return cal.id;
}
const newDoctor = async (lastName: string) =>
  (await createDoctor(server.ctx.db, tenant.clinicId, { firstName: 'Dott', lastName, facilityId: tenant.facilityIds[0] })).id;
const newChair = async (name: string) => (await createChair(server.ctx.db, tenant.clinicId, { name, facilityId: tenant.facilityIds[0] })).id;

const book = async (calendarId: string, start: string) =>
  api.callWithResponse('createAppointment', { body: { calendarId, patientId: await insertPatient(server, tenant), start } });
/** The starts the calendar offers in [from, to). */
const offered = async (calendarId: string, from: string, to: string) =>
  (await api.callWithResponse('getCalendarAvailability', { params: { path: { id: calendarId }, query: { from, to } } })).data.data.map((s) => s.start);

describe('a booking conflicts per doctor and per chair, not per calendar', () => {
  it('refuses on a second calendar the time a first one gave its shared doctor (409 slot_taken), and offers it no more', async () => {
    const first = await makeCalendar(server, tenant);
    const second = await calendarOver('Igiene', first.doctorIds, [await newChair('Poltrona igiene')]);
    expect((await book(first.id, at(7, 10))).response.status).toBe(201);

    const taken = await refused(book(second, at(7, 10)));
    expect([taken.status, taken.code, taken.reason]).toEqual([409, 'no_availability', 'slot_taken']);
    expect(await offered(second, at(7, 9, 30), at(7, 11))).toEqual([at(7, 9, 30), at(7, 10, 30)]);
  });

  it('refuses on a second calendar the time a first one gave its shared chair, though the doctors differ', async () => {
    const first = await makeCalendar(server, tenant, { chairs: 1 });
    const second = await calendarOver('Chirurgia', [await newDoctor('Chirurgo')], first.chairIds);
    expect((await book(first.id, at(7, 12))).response.status).toBe(201);

    const taken = await refused(book(second, at(7, 12)));
    expect([taken.status, taken.code, taken.reason]).toEqual([409, 'no_availability', 'slot_taken']);
    expect(await offered(second, at(7, 11, 30), at(7, 13))).toEqual([at(7, 11, 30), at(7, 12, 30)]);
  });

  it('books the same instant on two calendars that share neither doctor nor chair', async () => {
    const first = await makeCalendar(server, tenant, { chairs: 1 });
    const second = await makeCalendar(server, tenant, { chairs: 1 });
    expect((await book(first.id, at(7, 14))).response.status).toBe(201);
    expect((await book(second.id, at(7, 14))).response.status).toBe(201);
  });
});

/** The waitlist: entries, offers of freed slots one entry at a time, accept, decline, expiry. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { at, insertLead, insertPatient, makeCalendar } from '../../helpers/seed.js';
import { expireOffers } from '../../../src/modules/scheduling/offers.js';
import { addEntry, bookOn, freeStarts, offers } from './helpers.js';

let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());

const cancel = (id: string, token = tenant.token) => server.call('POST', `/v1/appointments/${id}/cancel`, { token });
const accept = (id: string, token = tenant.token) => server.call('POST', `/v1/waitlist-offers/${id}/accept`, { token });
const decline = (id: string, token = tenant.token) => server.call('POST', `/v1/waitlist-offers/${id}/decline`, { token });
const issuesOf = (res: { body: { error: { details: { issues: Array<{ path: string }> } } } }) => res.body.error.details.issues.map((i) => i.path).sort();

describe('waitlist entries', () => {
  it('creates, lists in order of creation, reads, refuses a second open entry and deletes', async () => {
    const cal = await makeCalendar(server, tenant);
    const patientId = await insertPatient(server, tenant);
    const leadId = await insertLead(server, tenant);
    const res = await server.call('POST', '/v1/waitlist', {
      token: tenant.token,
      body: { patientId, calendarId: cal.id, latest: at(20, 18), days: ['tue', 'thu'], partsOfDay: ['morning'], note: 'dopo le 9', channel: 'sms' },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      patientId,
      leadId: null,
      calendarId: cal.id,
      facilityId: tenant.facilityIds[0],
      status: 'open',
      channel: 'sms',
      days: ['tue', 'thu'],
    });
    const lead = await addEntry(server, tenant, { leadId, calendarId: cal.id, latest: at(20, 18) });

    const again = await server.call('POST', '/v1/waitlist', {
      token: tenant.token,
      body: { patientId, calendarId: cal.id, latest: at(10, 18), channel: 'phone' },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.details).toMatchObject({ reason: 'already_waiting', entryId: res.body.id });

    const list = await server.call('GET', `/v1/waitlist?calendarId=${cal.id}`, { token: tenant.token });
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([res.body.id, lead.id]);
    expect((await server.call('GET', `/v1/waitlist/${lead.id}`, { token: tenant.token })).body.leadId).toBe(leadId);

    expect((await server.call('DELETE', `/v1/waitlist/${res.body.id}`, { token: tenant.token })).status).toBe(204);
    expect((await server.call('GET', `/v1/waitlist/${res.body.id}`, { token: tenant.token })).body.status).toBe('removed');
    expect((await server.call('DELETE', `/v1/waitlist/${res.body.id}`, { token: tenant.token })).status).toBe(204);
    // Removed: the person may wait again.
    expect(
      (await server.call('POST', '/v1/waitlist', { token: tenant.token, body: { patientId, calendarId: cal.id, latest: at(10, 18), channel: 'phone' } }))
        .status,
    ).toBe(201);
  });

  it('names every wrong field at once and writes nothing', async () => {
    const cal = await makeCalendar(server, tenant);
    const other = await makeCalendar(server, tenant);
    const patientId = await insertPatient(server, tenant);
    const leadId = await insertLead(server, tenant);
    const both = await server.call('POST', '/v1/waitlist', {
      token: tenant.token,
      body: { patientId, leadId, calendarId: cal.id, doctorId: other.doctorIds[0], latest: at(-1, 9), channel: 'phone' },
    });
    expect(both.status).toBe(400);
    expect(issuesOf(both)).toEqual(['doctorId', 'latest', 'leadId', 'patientId']);
    const none = await server.call('POST', '/v1/waitlist', {
      token: tenant.token,
      body: { calendarId: '00000000-0000-4000-8000-000000000000', earliest: at(5, 9), latest: at(4, 9), channel: 'fax' },
    });
    expect(none.status).toBe(400);
    const window = await server.call('POST', '/v1/waitlist', {
      token: tenant.token,
      body: { patientId, calendarId: '00000000-0000-4000-8000-000000000000', earliest: at(5, 9), latest: at(4, 9), channel: 'phone' },
    });
    expect(issuesOf(window)).toEqual(['calendarId', 'latest']);
    const listed = await server.call('GET', `/v1/waitlist?patientId=${patientId}`, { token: tenant.token });
    expect(listed.body.data).toEqual([]);
  });
});

describe('offers of freed slots', () => {
  it('a cancellation offers the slot to the first matching entry, which holds it; accept books it once', async () => {
    const cal = await makeCalendar(server, tenant);
    const [a, b, c, d] = [
      await insertPatient(server, tenant),
      await insertPatient(server, tenant),
      await insertPatient(server, tenant),
      await insertPatient(server, tenant),
    ];
    const start = at(6, 9);
    const booked = await bookOn(server, tenant, cal.id, a, start);
    // b's window ends before the slot; c wants evenings only; d matches.
    await addEntry(server, tenant, { patientId: b, calendarId: cal.id, latest: at(5, 18) });
    await addEntry(server, tenant, { patientId: c, calendarId: cal.id, latest: at(20, 18), partsOfDay: ['evening'] });
    const entryD = await addEntry(server, tenant, { patientId: d, calendarId: cal.id, latest: at(20, 18) });
    // The patient who cancels is on the list too: never offered their own slot back.
    await addEntry(server, tenant, { patientId: a, calendarId: cal.id, latest: at(20, 18) });

    expect((await cancel(booked.id)).status).toBe(200);
    const [offer, ...rest] = await offers(server, tenant, `&calendarId=${cal.id}`);
    expect(rest).toEqual([]);
    expect(offer).toMatchObject({ entryId: entryD.id, patientId: d, status: 'offered', start });
    const minutes = (Date.parse(offer!.expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(29);
    expect(minutes).toBeLessThanOrEqual(30);
    const events = await server.ctx.db
      .selectFrom('events')
      .selectAll()
      .where('clinic_id', '=', tenant.clinicId)
      .where('type', '=', 'waitlist.offer_created')
      .execute();
    expect(events.map((e) => (e.data as { id: string }).id)).toContain(offer!.id);

    // Nobody else can take it while it is offered.
    expect(await freeStarts(server, tenant, cal.id, at(6, 8), at(6, 11))).not.toContain(start);
    const other = await server.call('POST', '/v1/appointments', { token: tenant.token, body: { calendarId: cal.id, patientId: b, start } });
    expect(other.status).toBe(409);
    expect(other.body.error.details).toMatchObject({ reason: 'slot_taken', heldUntil: offer!.expiresAt });

    const ok = await accept(offer!.id);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ status: 'accepted', id: offer!.id });
    const appointment = await server.call('GET', `/v1/appointments/${ok.body.appointmentId}`, { token: tenant.token });
    expect(appointment.body).toMatchObject({ patientId: d, start, calendarId: cal.id, doctorId: cal.doctorIds[0] });
    const again = await accept(offer!.id);
    expect(again.body.appointmentId).toBe(ok.body.appointmentId);
    expect((await server.call('GET', `/v1/waitlist/${entryD.id}`, { token: tenant.token })).body).toMatchObject({
      status: 'booked',
      appointmentId: ok.body.appointmentId,
    });
    expect((await decline(offer!.id)).body.error.details.reason).toBe('offer_accepted');
  });

  it('decline passes the slot to the next entry; the last decline frees it', async () => {
    const cal = await makeCalendar(server, tenant);
    const [a, b, c] = [await insertPatient(server, tenant), await insertPatient(server, tenant), await insertPatient(server, tenant)];
    const start = at(7, 10);
    const booked = await bookOn(server, tenant, cal.id, a, start);
    const eb = await addEntry(server, tenant, { patientId: b, calendarId: cal.id, latest: at(20, 18) });
    const ec = await addEntry(server, tenant, { patientId: c, calendarId: cal.id, latest: at(20, 18) });
    await cancel(booked.id);
    const [first] = await offers(server, tenant, `&calendarId=${cal.id}&status=offered`);
    expect(first!.entryId).toBe(eb.id);
    expect((await decline(first!.id)).body.status).toBe('declined');
    const [second] = await offers(server, tenant, `&calendarId=${cal.id}&status=offered`);
    expect(second!.entryId).toBe(ec.id);
    expect(await freeStarts(server, tenant, cal.id, at(7, 9), at(7, 12))).not.toContain(start);
    await decline(second!.id);
    expect(await offers(server, tenant, `&calendarId=${cal.id}&status=offered`)).toEqual([]);
    expect(await freeStarts(server, tenant, cal.id, at(7, 9), at(7, 12))).toContain(start);
    // Declined entries stay open; accepting a declined offer is refused.
    expect((await server.call('GET', `/v1/waitlist/${eb.id}`, { token: tenant.token })).body.status).toBe('open');
    expect((await accept(first!.id)).body.error.details.reason).toBe('offer_declined');
  });

  it('expiry passes the slot on; an accept after expiry books a still-free slot and is refused once it was passed on', async () => {
    const cal = await makeCalendar(server, tenant);
    const [a, b, c] = [await insertPatient(server, tenant), await insertPatient(server, tenant), await insertPatient(server, tenant)];
    const start = at(8, 11);
    const booked = await bookOn(server, tenant, cal.id, a, start);
    await server.admin('PUT', `/admin/v1/clinics/${tenant.clinicId}/waitlist-settings`, { offerMinutes: 10 });
    await addEntry(server, tenant, { patientId: b, calendarId: cal.id, latest: at(20, 18) });
    const ec = await addEntry(server, tenant, { patientId: c, calendarId: cal.id, latest: at(20, 18) });
    await cancel(booked.id);
    const [first] = await offers(server, tenant, `&calendarId=${cal.id}`);
    expect((Date.parse(first!.expiresAt) - Date.now()) / 60_000).toBeLessThanOrEqual(10);
    const lapse = (id: string) =>
      server.ctx.db
        .updateTable('waitlist_offers')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where('id', '=', id)
        .execute();
    await lapse(first!.id);
    expect(await expireOffers(server.ctx.db)).toBeGreaterThanOrEqual(1);
    const all = await offers(server, tenant, `&calendarId=${cal.id}`);
    expect(all.map((o) => [o.id === first!.id ? 'first' : o.entryId === ec.id ? 'c' : '?', o.status])).toEqual([
      ['first', 'expired'],
      ['c', 'offered'],
    ]);
    // The first entry answers late: the slot went to c.
    expect((await accept(first!.id)).body.error.details.reason).toBe('offer_expired');
    // c answers late too, with nobody after: the slot is still free, so it books.
    await lapse(all[1]!.id);
    await expireOffers(server.ctx.db);
    expect(await freeStarts(server, tenant, cal.id, at(8, 10), at(8, 12))).toContain(start);
    const late = await accept(all[1]!.id);
    expect(late.status, late.text).toBe(200);
    expect(late.body.status).toBe('accepted');
  });

  it('a lead entry books once the lead is converted; deleting an entry withdraws its offer and passes it on', async () => {
    const cal = await makeCalendar(server, tenant);
    const [a, b] = [await insertPatient(server, tenant), await insertPatient(server, tenant)];
    const leadId = await insertLead(server, tenant);
    const start = at(9, 9);
    const booked = await bookOn(server, tenant, cal.id, a, start);
    const el = await addEntry(server, tenant, { leadId, calendarId: cal.id, latest: at(20, 18) });
    const eb = await addEntry(server, tenant, { patientId: b, calendarId: cal.id, latest: at(20, 18) });
    await cancel(booked.id);
    const [offer] = await offers(server, tenant, `&entryId=${el.id}`);
    expect((await accept(offer!.id)).body.error.details.reason).toBe('lead_not_converted');
    expect((await server.call('DELETE', `/v1/waitlist/${el.id}`, { token: tenant.token })).status).toBe(204);
    expect((await offers(server, tenant, `&entryId=${el.id}`))[0]!.status).toBe('withdrawn');
    expect((await offers(server, tenant, `&entryId=${eb.id}`))[0]!.status).toBe('offered');
  });

  it('a reschedule frees the old time at once (API and agenda) and offers it', async () => {
    const cal = await makeCalendar(server, tenant);
    const [a, b] = [await insertPatient(server, tenant), await insertPatient(server, tenant)];
    const first = await bookOn(server, tenant, cal.id, a, at(10, 9));
    const moved = await server.call('PATCH', `/v1/appointments/${first.id}`, { token: tenant.token, body: { start: at(10, 14) } });
    expect(moved.status, moved.text).toBe(200);
    const free = await freeStarts(server, tenant, cal.id, at(10, 8), at(10, 16));
    expect(free).toContain(at(10, 9));
    expect(free).not.toContain(at(10, 14));

    const eb = await addEntry(server, tenant, { patientId: b, calendarId: cal.id, latest: at(20, 18) });
    await server.call('PATCH', `/v1/appointments/${first.id}`, { token: tenant.token, body: { start: at(10, 15) } });
    expect((await offers(server, tenant, `&entryId=${eb.id}`)).map((o) => o.start)).toEqual([at(10, 14)]);
    await server.call('DELETE', `/v1/waitlist/${eb.id}`, { token: tenant.token });
    // The clinic moves it in its agenda: the old time is free at once.
    const agenda = await server.admin('PATCH', `/admin/v1/clinics/${tenant.clinicId}/appointments/${first.id}`, { start: at(10, 16), end: at(10, 16, 30) });
    expect(agenda.status, agenda.text).toBe(200);
    expect(await freeStarts(server, tenant, cal.id, at(10, 8), at(10, 17))).toContain(at(10, 15));
  });

  it('another clinic sees none of it (404)', async () => {
    const cal = await makeCalendar(server, tenant);
    const patientId = await insertPatient(server, tenant);
    const entry = await addEntry(server, tenant, { patientId, calendarId: cal.id, latest: at(20, 18) });
    const stranger = await server.factories.tenant();
    expect((await server.call('GET', `/v1/waitlist/${entry.id}`, { token: stranger.token })).status).toBe(404);
    expect((await server.call('DELETE', `/v1/waitlist/${entry.id}`, { token: stranger.token })).status).toBe(404);
    expect((await server.call('GET', '/v1/waitlist', { token: stranger.token })).body.data).toEqual([]);
    const foreign = await server.call('POST', '/v1/waitlist', {
      token: stranger.token,
      body: { patientId, calendarId: cal.id, latest: at(20, 18), channel: 'phone' },
    });
    expect(issuesOf(foreign)).toEqual(['calendarId', 'patientId']);
  });
});

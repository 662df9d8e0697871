import { bookAppointment } from '../../../src/modules/scheduling/booking.js';
import { cancelAppointmentViaApi } from '../../../src/modules/scheduling/changes.js';
import { createEntry } from '../../../src/modules/waitlist/service.js';
import { at, insertPatient, makeCalendar } from '../../helpers/seed.js';
import type { TestServer } from '../../helpers/server.js';
import type { Tenant } from '../../helpers/factories.js';
import type { MatrixCase } from '../matrix.js';

let hour = 0;

/** A waitlist entry of the tenant's first facility. */
async function entry(server: TestServer, tenant: Tenant) {
  const cal = await makeCalendar(server, tenant);
  const patientId = await insertPatient(server, tenant);
  return createEntry(server.ctx.db, await server.actor(tenant.clinicId), { patientId, calendarId: cal.id, latest: at(30, 18), channel: 'phone' });
}

/** A live offer: a booked slot cancelled while one entry waits for its calendar. */
async function offer(server: TestServer, tenant: Tenant): Promise<string> {
  const actor = await server.actor(tenant.clinicId);
  const cal = await makeCalendar(server, tenant);
  const [a, b] = [await insertPatient(server, tenant), await insertPatient(server, tenant)];
  const booked = await bookAppointment(server.ctx.db, actor, { calendarId: cal.id, patientId: a, start: at(4, 8, (hour++ % 20) * 30) });
  const waiting = await createEntry(server.ctx.db, actor, { patientId: b, calendarId: cal.id, latest: at(30, 18), channel: 'phone' });
  await cancelAppointmentViaApi(server.ctx.db, actor, booked.id, null);
  const row = await server.ctx.db.selectFrom('waitlist_offers').select('id').where('entry_id', '=', waiting.id).executeTakeFirstOrThrow();
  return row.id;
}

export const cases: MatrixCase[] = [
  {
    operationId: 'createWaitlistEntry',
    method: 'POST',
    scopes: ['appointments:write'],
    resource: false,
    okStatus: 201,
    prepare: async (server, tenant) => {
      const cal = await makeCalendar(server, tenant);
      const patientId = await insertPatient(server, tenant);
      return { path: '/v1/waitlist', body: { patientId, calendarId: cal.id, latest: at(30, 18), channel: 'phone' } };
    },
  },
  { operationId: 'listWaitlistEntries', method: 'GET', scopes: ['appointments:read'], resource: false, prepare: async () => ({ path: '/v1/waitlist' }) },
  {
    operationId: 'getWaitlistEntry',
    method: 'GET',
    scopes: ['appointments:read'],
    resource: true,
    prepare: async (server, tenant) => ({ path: `/v1/waitlist/${(await entry(server, tenant)).id}` }),
  },
  {
    operationId: 'deleteWaitlistEntry',
    method: 'DELETE',
    scopes: ['appointments:write'],
    resource: true,
    okStatus: 204,
    prepare: async (server, tenant) => ({ path: `/v1/waitlist/${(await entry(server, tenant)).id}` }),
  },
  { operationId: 'listWaitlistOffers', method: 'GET', scopes: ['appointments:read'], resource: false, prepare: async () => ({ path: '/v1/waitlist-offers' }) },
  {
    operationId: 'acceptWaitlistOffer',
    method: 'POST',
    scopes: ['appointments:write'],
    resource: true,
    okStatus: 200,
    prepare: async (server, tenant) => ({ path: `/v1/waitlist-offers/${await offer(server, tenant)}/accept` }),
  },
  {
    operationId: 'declineWaitlistOffer',
    method: 'POST',
    scopes: ['appointments:write'],
    resource: true,
    okStatus: 200,
    prepare: async (server, tenant) => ({ path: `/v1/waitlist-offers/${await offer(server, tenant)}/decline` }),
  },
  {
    operationId: 'getAgendaStats',
    method: 'GET',
    scopes: ['appointments:read'],
    resource: false,
    prepare: async () => ({ path: '/v1/stats/agenda?from=2026-03-02&to=2026-03-09' }),
  },
  { operationId: 'listRecalls', method: 'GET', scopes: ['patients:read'], resource: false, prepare: async () => ({ path: '/v1/recalls' }) },
  {
    operationId: 'createRecallAttempt',
    method: 'POST',
    scopes: ['patients:write'],
    resource: true,
    okStatus: 201,
    prepare: async (server, tenant) => ({
      path: `/v1/recalls/${await insertPatient(server, tenant)}/attempts`,
      body: { channel: 'phone', outcome: 'no_answer' },
    }),
  },
  {
    operationId: 'listRecallAttempts',
    method: 'GET',
    scopes: ['patients:read'],
    resource: true,
    prepare: async (server, tenant) => ({ path: `/v1/recalls/${await insertPatient(server, tenant)}/attempts` }),
  },
];

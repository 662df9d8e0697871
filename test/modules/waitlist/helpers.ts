/** Helpers of the waitlist tests: entries and offers through HTTP, appointments through the API booking. */
import type { Tenant } from '../../helpers/factories.js';
import type { TestServer } from '../../helpers/server.js';
import { bookAppointment } from '../../../src/modules/scheduling/booking.js';

export async function addEntry(server: TestServer, tenant: Tenant, body: Record<string, unknown>, token = tenant.token) {
  const res = await server.call('POST', '/v1/waitlist', { token, body: { channel: 'phone', ...body } });
  if (res.status !== 201) throw new Error(`waitlist entry: ${res.status} ${res.text}`);
  return res.body as { id: string; status: string };
}

/** An appointment booked on the calendar through the API booking (so it has a calendar). */
export async function bookOn(server: TestServer, tenant: Tenant, calendarId: string, patientId: string, start: string) {
  return bookAppointment(server.ctx.db, await server.actor(tenant.clinicId), { calendarId, patientId, start });
}

export async function offers(server: TestServer, tenant: Tenant, query = '') {
  const res = await server.call('GET', `/v1/waitlist-offers?limit=200${query}`, { token: tenant.token });
  if (res.status !== 200) throw new Error(`offers: ${res.status} ${res.text}`);
  return res.body.data as Array<{
    id: string;
    entryId: string;
    status: string;
    start: string;
    expiresAt: string;
    appointmentId: string | null;
    patientId: string | null;
  }>;
}

export async function freeStarts(server: TestServer, tenant: Tenant, calendarId: string, from: string, to: string): Promise<string[]> {
  const res = await server.call('GET', `/v1/calendars/${calendarId}/availability?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, {
    token: tenant.token,
  });
  if (res.status !== 200) throw new Error(`availability: ${res.status} ${res.text}`);
  return (res.body.data as Array<{ start: string }>).map((s) => s.start);
}

/**
 * The outbound tools (the waitlist and the recalls, through the tool registry): a caller put on the waitlist through
 * MCP is offered the slot a cancellation frees, and an outbound agent books it with one tool call
 * and logs a recall attempt once however often the platform retries; the tools follow the key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { at, insertPatient, makeCalendar } from '../helpers/seed.js';
import { bookOn } from '../modules/waitlist/helpers.js';
import { callTool, listTools, toolError } from './mcp-client.js';

let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
}, 60_000);
afterAll(() => server.close());

describe('outbound tools over MCP', () => {
  it('waits, is offered the freed slot, and books it with accept_waitlist_offer', async () => {
    const cal = await makeCalendar(server, tenant);
    const holder = await insertPatient(server, tenant);
    const waiting = await insertPatient(server, tenant);
    const start = at(3, 10);
    const booked = await bookOn(server, tenant, cal.id, holder, start);

    const entry = await callTool(server.url, tenant.token, 'add_to_waitlist', {
      patientId: waiting,
      calendarId: cal.id,
      latest: at(10, 18),
      channel: 'phone',
      callId: 'call-outbound-1',
    });
    expect(entry.isError, JSON.stringify(entry)).toBeFalsy();
    expect(entry.structuredContent).toMatchObject({ patientId: waiting, calendarId: cal.id, status: 'open' });
    // A retried tool call answers the first entry and writes nothing more.
    const retried = await callTool(server.url, tenant.token, 'add_to_waitlist', {
      patientId: waiting,
      calendarId: cal.id,
      latest: at(10, 18),
      channel: 'phone',
      callId: 'call-outbound-1',
    });
    expect(retried.structuredContent.id).toBe(entry.structuredContent.id);

    const cancelled = await server.call('POST', `/v1/appointments/${booked.id}/cancel`, { token: tenant.token });
    expect(cancelled.status, cancelled.text).toBe(200);

    const offers = await callTool(server.url, tenant.token, 'list_waitlist_offers', {});
    expect(offers.isError, JSON.stringify(offers)).toBeFalsy();
    const offer = offers.structuredContent.data.find((o: { entryId: string }) => o.entryId === entry.structuredContent.id);
    expect(offer).toMatchObject({ status: 'offered', patientId: waiting });
    expect(Date.parse(offer.start)).toBe(Date.parse(start));

    const accepted = await callTool(server.url, tenant.token, 'accept_waitlist_offer', { offerId: offer.id, callId: 'call-outbound-2' });
    expect(accepted.isError, JSON.stringify(accepted)).toBeFalsy();
    expect(accepted.structuredContent.appointmentId).toEqual(expect.any(String));
    const appointment = await server.call('GET', `/v1/appointments/${accepted.structuredContent.appointmentId}`, { token: tenant.token });
    expect(appointment.body).toMatchObject({ patientId: waiting, calendarId: cal.id });
  });

  it('logs a recall attempt once however often the platform retries it', async () => {
    const patientId = await insertPatient(server, tenant);
    const args = { patientId, channel: 'phone', outcome: 'no_answer', externalCallId: 'rc-1', callId: 'call-recall-1' };
    const first = await callTool(server.url, tenant.token, 'log_recall_attempt', args);
    expect(first.isError, JSON.stringify(first)).toBeFalsy();
    const again = await callTool(server.url, tenant.token, 'log_recall_attempt', args);
    expect(again.structuredContent.id).toBe(first.structuredContent.id);
    const attempts = await server.call('GET', `/v1/recalls/${patientId}/attempts`, { token: tenant.token });
    expect(attempts.body.data).toHaveLength(1);
    const list = await callTool(server.url, tenant.token, 'list_due_recalls', {});
    expect(list.isError, JSON.stringify(list)).toBeFalsy();
    expect(Array.isArray(list.structuredContent.data)).toBe(true);
  });

  it('shows the outbound tools only to keys whose scopes allow them, and refuses an offer of another clinic', async () => {
    const { token: readOnly } = await server.factories.key(tenant.clinicId, ['appointments:read']);
    const names = (await listTools(server.url, readOnly)).map((t) => t.name);
    expect(names).toContain('list_waitlist_offers');
    expect(names).not.toContain('add_to_waitlist');
    expect(names).not.toContain('accept_waitlist_offer');
    expect(names).not.toContain('list_due_recalls');

    const other = await server.factories.tenant();
    const error = toolError(await callTool(server.url, other.token, 'accept_waitlist_offer', { offerId: '6a7b8c9d-0e1f-4a2b-9c3d-4e5f6a7b8c9d' }));
    expect(error.code).toBe('not_found');
  });
});

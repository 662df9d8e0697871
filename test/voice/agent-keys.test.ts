/** Agent keys (issue 15): origin from the key, bookableBy, and ai_disabled at once in every process. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeFeed } from '../../src/db/change-feed.js';
import { Authenticator } from '../../src/modules/auth/authenticate.js';
import { SCOPES } from '../../src/modules/auth/scopes.js';
import type { Tenant } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { at, insertPatient, makeCalendar } from '../agenda/helpers.js';

let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());

async function agentKey(clinicId: string, agent: 'chat_bot' | 'voice_agent' | 'none'): Promise<{ token: string; id: string }> {
  const res = await server.admin('POST', `/admin/v1/clinics/${clinicId}/api-keys`, { name: `agent ${agent}`, scopes: [...SCOPES], agent });
  expect(res.status, res.text).toBe(201);
  expect(res.body.agent).toBe(agent);
  return { token: res.body.token, id: res.body.id };
}

describe('agent keys', () => {
  it('the back office issues keys with agent (default none) and refuses an unknown kind', async () => {
    const plain = await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/api-keys`, { name: 'plain', scopes: ['clinic:read'] });
    expect(plain.body.agent).toBe('none');
    const bad = await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/api-keys`, { name: 'x', scopes: ['clinic:read'], agent: 'robot' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues[0].path).toBe('agent');
  });

  it('stamps origin bot / voice from the key on booking, moving and cancelling, whatever the body says', async () => {
    const cal = await makeCalendar(server, tenant);
    const voice = await agentKey(tenant.clinicId, 'voice_agent');
    const bot = await agentKey(tenant.clinicId, 'chat_bot');
    const patientId = await insertPatient(server, tenant);
    const byVoice = await server.call('POST', '/v1/appointments', {
      token: voice.token,
      body: { calendarId: cal.id, patientId, start: at(3, 9), origin: 'api' },
    });
    expect(byVoice.status, byVoice.text).toBe(201);
    expect(byVoice.body.origin).toBe('voice');
    const byBot = await server.call('POST', '/v1/appointments', {
      token: bot.token,
      body: { calendarId: cal.id, patientId, start: at(3, 10), origin: 'voice' },
    });
    expect(byBot.body.origin).toBe('bot');
    const plain = await server.call('POST', '/v1/appointments', {
      token: tenant.token,
      body: { calendarId: cal.id, patientId, start: at(3, 11), origin: 'bot' },
    });
    expect(plain.body.origin).toBe('bot');
    const moved = await server.call('PATCH', `/v1/appointments/${plain.body.id}`, { token: voice.token, body: { start: at(3, 12) } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.origin).toBe('voice');
    const cancelled = await server.call('POST', `/v1/appointments/${byVoice.body.id}/cancel`, { token: bot.token, body: {} });
    expect(cancelled.body.origin).toBe('bot');
  });

  it('a calendar closed to a channel says so in availability and refuses its bookings and holds (403 not_bookable_by_agent)', async () => {
    const cal = await makeCalendar(server, tenant);
    const patch = await server.admin('PATCH', `/admin/v1/clinics/${tenant.clinicId}/calendars/${cal.id}`, {
      bookableBy: ['api', 'bot'],
      takesNewPatients: false,
    });
    expect(patch.status, patch.text).toBe(200);
    const voice = await agentKey(tenant.clinicId, 'voice_agent');
    const avail = await server.call('GET', `/v1/calendars/${cal.id}/availability`, { token: voice.token });
    expect(avail.body).toMatchObject({ data: [], window: null, emptyReason: 'not_bookable_by_agent', nextAvailable: null });
    const patientId = await insertPatient(server, tenant);
    const booked = await server.call('POST', '/v1/appointments', { token: voice.token, body: { calendarId: cal.id, patientId, start: at(4, 9) } });
    expect(booked.status).toBe(403);
    expect(booked.body.error.details.reason).toBe('not_bookable_by_agent');
    const held = await server.call('POST', `/v1/calendars/${cal.id}/holds`, { token: voice.token, body: { start: at(4, 9), holderRef: 'x' } });
    expect(held.body.error.details.reason).toBe('not_bookable_by_agent');
    // The plain key may book, but the calendar takes no new patients.
    const newcomer = await server.call('POST', '/v1/appointments', { token: tenant.token, body: { calendarId: cal.id, patientId, start: at(4, 9) } });
    expect(newcomer.status).toBe(403);
    expect(newcomer.body.error.details.reason).toBe('new_patients_not_accepted');
    const count = await server.ctx.db.selectFrom('appointments').select('id').where('patient_id', '=', patientId).execute();
    expect(count).toHaveLength(0);
  });

  it('with the clinic’s AI off: every request of an agent key and every /v1/voice operation is 403 ai_disabled at once, in every process; a plain key is unaffected', async () => {
    const own = await server.factories.tenant();
    const voice = await agentKey(own.clinicId, 'voice_agent');
    const bot = await agentKey(own.clinicId, 'chat_bot');
    // A second "process": its own key cache and its own change feed on the same database.
    const feed = await ChangeFeed.start(server.ctx.database);
    const elsewhere = new Authenticator(server.ctx.db, feed);
    try {
      expect((await elsewhere.authenticate(`Bearer ${voice.token}`)).aiEnabled).toBe(true);
      expect((await server.call('GET', '/v1/meta', { token: voice.token })).status).toBe(200);

      const off = await server.admin('PATCH', `/admin/v1/clinics/${own.clinicId}`, { aiEnabled: false });
      expect(off.status, off.text).toBe(200);
      const switchedAt = Date.now();
      // The notification arrives about a millisecond after the commit; the cache would keep the old value for a second.
      while ((await elsewhere.authenticate(`Bearer ${voice.token}`)).aiEnabled) await new Promise((r) => setTimeout(r, 2));
      expect(Date.now() - switchedAt).toBeLessThan(500);

      for (const [token, method, path] of [
        [voice.token, 'GET', '/v1/meta'],
        [bot.token, 'GET', '/v1/facilities'],
        [voice.token, 'GET', '/v1/patients/search?q=Rossi'],
        [own.token, 'GET', '/v1/voice/context?from=%2B393331234567'],
      ] as const) {
        const res = await server.call(method, path, { token });
        expect(res.status, `${path}: ${res.text}`).toBe(403);
        expect(res.body.error).toMatchObject({ code: 'forbidden', details: { reason: 'ai_disabled' } });
      }
      const handoff = await server.call('POST', '/v1/voice/handoffs', { token: own.token, body: { callId: 'c-1', reason: 'other' } });
      expect(handoff.body.error.details.reason).toBe('ai_disabled');
      expect((await server.call('GET', '/v1/meta', { token: own.token })).status).toBe(200);
      expect((await server.call('GET', '/v1/facilities', { token: own.token })).status).toBe(200);

      await server.admin('PATCH', `/admin/v1/clinics/${own.clinicId}`, { aiEnabled: true });
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) status = (await server.call('GET', '/v1/meta', { token: voice.token })).status;
      expect(status).toBe(200);
    } finally {
      await feed.close();
    }
  });
});

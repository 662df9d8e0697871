/** Agent keys: origin from the key, bookableBy, and ai_disabled at once in every process. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeFeed } from '../../../src/db/change-feed.js';
import { Authenticator } from '../../../src/modules/auth/authenticate.js';
import { SCOPES } from '../../../src/modules/auth/scopes.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { at, insertPatient, makeCalendar } from '../../helpers/seed.js';

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
    const [voiceApi, botApi] = [server.api(voice.token), server.api(bot.token)];
    const byVoice = await voiceApi.callWithResponse('createAppointment', { body: { calendarId: cal.id, patientId, start: at(3, 9), origin: 'api' } });
    expect(byVoice.response.status).toBe(201);
    expect(byVoice.data.origin).toBe('voice');
    const byBot = await botApi.call('createAppointment', { body: { calendarId: cal.id, patientId, start: at(3, 10), origin: 'voice' } });
    expect(byBot.origin).toBe('bot');
    const plain = await server.api(tenant.token).call('createAppointment', { body: { calendarId: cal.id, patientId, start: at(3, 11), origin: 'bot' } });
    expect(plain.origin).toBe('bot');
    const moved = await voiceApi.callWithResponse('rescheduleAppointment', { params: { path: { id: plain.id } }, body: { start: at(3, 12) } });
    expect(moved.response.status).toBe(200);
    expect(moved.data.origin).toBe('voice');
    const cancelled = await botApi.call('cancelAppointment', { params: { path: { id: byVoice.data.id } } });
    expect(cancelled.origin).toBe('bot');
  });

  it('a calendar closed to a channel says so in availability and refuses its bookings and holds (403 not_bookable_by_agent)', async () => {
    const cal = await makeCalendar(server, tenant);
    const patch = await server.admin('PATCH', `/admin/v1/clinics/${tenant.clinicId}/calendars/${cal.id}`, {
      bookableBy: ['api', 'bot'],
      takesNewPatients: false,
    });
    expect(patch.status, patch.text).toBe(200);
    const voice = await agentKey(tenant.clinicId, 'voice_agent');
    const voiceApi = server.api(voice.token);
    const avail = await voiceApi.call('getCalendarAvailability', { params: { path: { id: cal.id } } });
    expect(avail).toMatchObject({ data: [], window: null, emptyReason: 'not_bookable_by_agent', nextAvailable: null });
    const patientId = await insertPatient(server, tenant);
    await expect(voiceApi.call('createAppointment', { body: { calendarId: cal.id, patientId, start: at(4, 9) } })).rejects.toMatchObject({
      status: 403,
      details: { reason: 'not_bookable_by_agent' },
    });
    await expect(voiceApi.call('createSlotHold', { params: { path: { id: cal.id } }, body: { start: at(4, 9), holderRef: 'x' } })).rejects.toMatchObject({
      details: { reason: 'not_bookable_by_agent' },
    });
    // The plain key may book, but the calendar takes no new patients.
    await expect(server.api(tenant.token).call('createAppointment', { body: { calendarId: cal.id, patientId, start: at(4, 9) } })).rejects.toMatchObject({
      status: 403,
      details: { reason: 'new_patients_not_accepted' },
    });
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
      const [voiceApi, botApi, ownApi] = [server.api(voice.token), server.api(bot.token), server.api(own.token)];
      expect((await voiceApi.callWithResponse('getMeta')).response.status).toBe(200);

      const off = await server.admin('PATCH', `/admin/v1/clinics/${own.clinicId}`, { aiEnabled: false });
      expect(off.status, off.text).toBe(200);
      const switchedAt = Date.now();
      // The notification arrives about a millisecond after the commit; the cache would keep the old value for a second.
      while ((await elsewhere.authenticate(`Bearer ${voice.token}`)).aiEnabled) await new Promise((r) => setTimeout(r, 2));
      expect(Date.now() - switchedAt).toBeLessThan(500);

      for (const [path, call] of [
        ['/v1/meta', () => voiceApi.call('getMeta')],
        ['/v1/facilities', () => botApi.call('listFacilities')],
        ['/v1/patients/search?q=Rossi', () => voiceApi.call('searchPatients', { params: { query: { q: 'Rossi' } } })],
        ['/v1/voice/context?from=%2B393331234567', () => ownApi.call('getVoiceContext', { params: { query: { from: '+393331234567' } } })],
      ] as const) {
        await expect(call(), path).rejects.toMatchObject({ status: 403, code: 'forbidden', details: { reason: 'ai_disabled' } });
      }
      await expect(ownApi.call('createVoiceHandoff', { body: { callId: 'c-1', reason: 'other' } })).rejects.toMatchObject({
        details: { reason: 'ai_disabled' },
      });
      expect((await ownApi.callWithResponse('getMeta')).response.status).toBe(200);
      expect((await ownApi.callWithResponse('listFacilities')).response.status).toBe(200);

      await server.admin('PATCH', `/admin/v1/clinics/${own.clinicId}`, { aiEnabled: true });
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) status = (await voiceApi.raw.GET('/meta')).response.status;
      expect(status).toBe(200);
    } finally {
      await feed.close();
    }
  });
});

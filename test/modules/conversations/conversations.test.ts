import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClientError } from '../../../packages/client/src/index.js';
import { refused } from '../../helpers/refused.js';
import type { operations } from '../../../packages/client/src/schema.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { insertLead, insertPatient } from '../../helpers/seed.js';

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
});
afterAll(() => server.close());

const FIELDS = [
  'botPausedUntil',
  'botState',
  'createdAt',
  'id',
  'lastActivityAt',
  'lastInboundAt',
  'lastOutboundAt',
  'leadId',
  'optedOut',
  'patientId',
  'phone',
  'updatedAt',
];

async function open(body: Record<string, unknown>) {
  const res = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/conversations`, body);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function message(conversationId: string, body: Record<string, unknown>) {
  const res = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/conversations/${conversationId}/messages`, body);
  await new Promise((r) => setTimeout(r, 3));
  return res;
}

// Typed calls (the project's client, generated OpenAPI types).
const getConversation = (id: string) => server.api(t.token).callWithResponse('getConversation', { params: { path: { id } } });
type MessagesQuery = NonNullable<operations['listConversationMessages']['parameters']['query']>;
const messages = (id: string, query: MessagesQuery = {}, token = t.token, headers: Record<string, string> = {}) =>
  server.api(token).callWithResponse('listConversationMessages', { params: { path: { id }, query }, headers });
type BotBody = operations['updateConversationBot']['requestBody']['content']['application/json'];
const setBot = (id: string, body: BotBody, headers: Record<string, string> = {}) =>
  server.api(t.token).callWithResponse('updateConversationBot', { params: { path: { id } }, body, headers });
const firstIssue = (error: ApiClientError) => (error.details?.issues as { path: string }[])[0]!.path;

const events = (type: string) => server.ctx.db.selectFrom('events').selectAll().where('clinic_id', '=', t.clinicId).where('type', '=', type).execute();

describe('conversations', () => {
  it('opens for a patient, a lead or a bare phone, with exactly the 2.7 fields', async () => {
    const p = await insertPatient(server, t, t.facilityIds[0], { phone: '+393331112233' });
    const c = await open({ patientId: p });
    expect(c).toMatchObject({ patientId: p, leadId: null, phone: '+393331112233', botState: 'attivo', optedOut: false, botPausedUntil: null });
    const lead = await open({ leadId: await insertLead(server, t) });
    expect(lead.phone).toBe('+393471112222');
    const bare = await open({ phone: '347 555 1234' });
    expect(bare.phone).toBe('+393475551234');
    const res = await getConversation(c.id);
    expect(Object.keys(res.data).sort()).toEqual(FIELDS);
    const bad = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/conversations`, { phone: 'abc', facilityId: crypto.randomUUID() });
    expect(bad.body.error.details.issues.map((i: any) => i.path).sort()).toEqual(['facilityId', 'phone']);
  });

  it('records messages: inbound event with ids only, STOP opt-out, timestamps, and lists by arrival with paging', async () => {
    const p = await insertPatient(server, t);
    const c = await open({ patientId: p, facilityId: t.facilityIds[0] });
    const m1 = await message(c.id, { direction: 'in', body: 'Vorrei un appuntamento per il mal di denti' });
    expect(m1.status, m1.text).toBe(201);
    expect(m1.body.conversation.lastInboundAt).toBe(m1.body.message.createdAt);
    const m2 = await message(c.id, { direction: 'out', author: 'bot', body: 'Certo!' });
    const m3 = await message(c.id, { direction: 'in', type: 'vocale', mediaMimeType: 'audio/ogg', mediaDurationSeconds: 12, transcription: 'ho un ascesso' });
    const [ev] = (await events('conversation.message_received')).filter((e) => (e.data as any).conversationId === c.id);
    expect(ev!.data).toEqual({ id: m1.body.message.id, conversationId: c.id, patientId: p, leadId: null });
    expect(ev!.facility_id).toBe(t.facilityIds[0]);
    expect((await events('conversation.message_received')).filter((e) => (e.data as any).conversationId === c.id)).toHaveLength(2);

    const page1 = await messages(c.id, { limit: 2 }, t.token, { 'x-request-id': 'msgs-1' });
    expect(page1.response.status).toBe(200);
    expect(page1.data.data.map((m) => m.id)).toEqual([m1.body.message.id, m2.body.message.id]);
    expect(page1.data.data[0]).toMatchObject({
      direction: 'in',
      author: 'paziente',
      type: 'testo',
      transcriptionStatus: 'assente',
      body: 'Vorrei un appuntamento per il mal di denti',
    });
    const page2 = (await messages(c.id, { limit: 2, cursor: page1.data.nextCursor! })).data;
    expect(page2.data[0]).toMatchObject({
      id: m3.body.message.id,
      type: 'vocale',
      mediaDurationSeconds: 12,
      transcription: 'ho un ascesso',
      transcriptionStatus: 'completata',
    });
    expect(page2.nextCursor).toBeNull();
    const since = (await messages(c.id, { updatedSince: m2.body.message.createdAt })).data;
    expect(since.data.map((m) => m.id)).toEqual([m2.body.message.id, m3.body.message.id]);

    const log = await server.ctx.db.selectFrom('access_log_entries').selectAll().where('request_id', '=', 'msgs-1').execute();
    expect(log).toHaveLength(1);
    expect(log[0]!.resource_ids).toEqual([m1.body.message.id, m2.body.message.id]);

    const stop = await message(c.id, { direction: 'in', body: ' Stop ' });
    expect(stop.body.conversation.optedOut).toBe(true);
    const blocked = await message(c.id, { direction: 'out', author: 'bot', body: 'Promemoria' });
    expect(blocked.status).toBe(409);
    expect(blocked.body.error.details.reason).toBe('opted_out');
    expect((await message(c.id, { direction: 'out', author: 'operatore', body: 'Ricevuto' })).status).toBe(201);
  });

  it('shows the transcription only with clinical:read and patients:read, in a patient’s conversation', async () => {
    const p = await insertPatient(server, t);
    const patientConv = await open({ patientId: p });
    const bareConv = await open({ phone: '+393470000001' });
    for (const c of [patientConv, bareConv]) await message(c.id, { direction: 'in', type: 'vocale', mediaDurationSeconds: 5, transcription: 'testo vocale' });
    const has = async (token: string, id: string) => 'transcription' in (await messages(id, {}, token)).data.data[0]!;
    expect(await has(t.token, patientConv.id)).toBe(true);
    expect(await has(t.token, bareConv.id)).toBe(false);
    expect(await has((await server.factories.key(t.clinicId, ['messages:read', 'clinical:read'])).token, patientConv.id)).toBe(false);
    expect(await has((await server.factories.key(t.clinicId, ['messages:read', 'patients:read'])).token, patientConv.id)).toBe(false);

    // A voice message transcribed later.
    const voice = await message(patientConv.id, {
      direction: 'in',
      type: 'vocale',
      mediaMimeType: 'audio/ogg',
      mediaDurationSeconds: 3,
      transcriptionStatus: 'in_corso',
    });
    expect(voice.body.message).toMatchObject({ transcriptionStatus: 'in_corso', transcription: null, body: null });
    const done = await server.admin('PATCH', `/admin/v1/clinics/${t.clinicId}/conversations/${patientConv.id}/messages/${voice.body.message.id}`, {
      transcriptionStatus: 'completata',
      transcription: 'richiamatemi',
    });
    expect(done.body).toMatchObject({ transcriptionStatus: 'completata', transcription: 'richiamatemi' });
    const list = (await messages(patientConv.id, {}, t.token, { 'x-request-id': 'voice-log' })).data;
    expect(list.data[1]).toMatchObject({ id: voice.body.message.id, transcription: 'richiamatemi' });
    const log = await server.ctx.db.selectFrom('access_log_entries').selectAll().where('request_id', '=', 'voice-log').execute();
    expect(log[0]!.fields).toEqual(['body', 'transcription']);
    expect(log[0]!.resource_ids).toEqual(list.data.map((m) => m.id));
  });

  it('pauses, resumes and hands off the bot per 3.1', async () => {
    const c = await open({ phone: '+393470000002' });
    const bot = (body: BotBody, headers?: Record<string, string>) => setBot(c.id, body, headers);
    const until = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const paused = await bot({ state: 'in_pausa', pausedUntil: until }, { 'if-match': '"1"' });
    expect(paused.response.status).toBe(200);
    expect(paused.data).toMatchObject({ botState: 'in_pausa', botPausedUntil: until });
    expect(paused.response.headers.get('etag')).toBe('"2"');
    expect((await refused(bot({ state: 'attivo' }, { 'if-match': '"1"' }))).reason).toBe('version_mismatch');

    const past = await refused(bot({ state: 'in_pausa', pausedUntil: new Date(Date.now() - 1000).toISOString() }));
    expect(past.status).toBe(400);
    expect(firstIssue(past)).toBe('pausedUntil');
    const far = await refused(bot({ state: 'in_pausa', pausedUntil: new Date(Date.now() + 8 * 86_400_000).toISOString() }));
    expect(firstIssue(far)).toBe('pausedUntil');
    expect(firstIssue(await refused(bot({ state: 'in_pausa' })))).toBe('pausedUntil');
    // A state outside the contract's list (allo_studio is the clinic's own, by handoff): raw.
    expect((await server.call('PATCH', `/v1/conversations/${c.id}/bot`, { token: t.token, body: { state: 'allo_studio' } })).status).toBe(400);
    expect((await bot({ state: 'attivo' })).data).toMatchObject({ botState: 'attivo', botPausedUntil: null });

    // A pause whose time passed reads as attivo.
    await server.ctx.db
      .updateTable('conversations')
      .set({ bot_state: 'in_pausa', bot_paused_until: new Date(Date.now() - 60_000) })
      .where('id', '=', c.id)
      .execute();
    expect((await getConversation(c.id)).data).toMatchObject({ botState: 'attivo', botPausedUntil: null });

    const handed = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/conversations/${c.id}/handoff`);
    expect(handed.body.botState).toBe('allo_studio');
    await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/conversations/${c.id}/handoff`);
    expect((await events('conversation.handoff_requested')).filter((e) => (e.data as any).id === c.id)).toHaveLength(1);
    const handedOff = await refused(bot({ state: 'in_pausa', pausedUntil: until }));
    expect(handedOff.status).toBe(409);
    expect(handedOff.reason).toBe('handed_to_clinic');
    expect((await bot({ state: 'attivo' })).data.botState).toBe('attivo');
  });
});

describe('expired bot pauses', () => {
  it('the job switches a pause whose time has passed back to attivo, once', async () => {
    const { expireBotPauses } = await import('../../../src/modules/conversations/jobs.js');
    const c = await open({ phone: '347 555 9876' });
    const paused = await setBot(c.id, { state: 'in_pausa', pausedUntil: new Date(Date.now() + 60_000).toISOString() });
    expect(paused.response.status).toBe(200);
    const stillPaused = await server.ctx.db.selectFrom('conversations').select('bot_state').where('id', '=', c.id).executeTakeFirstOrThrow();
    expect(stillPaused.bot_state).toBe('in_pausa');
    expect(await expireBotPauses(server.ctx.db)).toBe(0);
    await server.ctx.db
      .updateTable('conversations')
      .set({ bot_paused_until: new Date(Date.now() - 1000) })
      .where('id', '=', c.id)
      .execute();
    const before = await getConversation(c.id);
    expect(before.data.botState).toBe('attivo');
    expect(await expireBotPauses(server.ctx.db)).toBe(1);
    expect(await expireBotPauses(server.ctx.db)).toBe(0);
    const after = await getConversation(c.id);
    expect(after.data).toMatchObject({ botState: 'attivo', botPausedUntil: null });
    expect(after.response.headers.get('etag')).not.toBe(before.response.headers.get('etag'));
  });
});

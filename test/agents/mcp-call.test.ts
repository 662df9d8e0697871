/**
 * The MCP endpoint as a platform we did not write meets it: the SDK's own client over streamable
 * HTTP, a new connection per tool call (as Vapi), a whole phone call against the demo clinic,
 * and retries that never duplicate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoClinic } from '../../src/demo/clinic.js';
import { startDemoServer, type TestServer } from '../helpers/server.js';
import { callTool, listTools, toolError } from './mcp-client.js';

let server: TestServer;
let demo: DemoClinic;

beforeAll(async () => {
  ({ server, demo } = await startDemoServer());
}, 60_000);
afterAll(() => server.close());

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
};

async function count(table: 'appointments' | 'calls' | 'leads' | 'tasks' | 'slot_holds', clinicId: string): Promise<number> {
  const row = await server.ctx.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('clinic_id', '=', clinicId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('the MCP endpoint', () => {
  it('answers 401 with WWW-Authenticate: Bearer without a key or with a bad one', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    for (const auth of [undefined, 'Bearer dcm_live_nope']) {
      const res = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { ...headers, ...(auth ? { authorization: auth } : {}) },
        body: JSON.stringify(INITIALIZE),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
    }
    const ok = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${demo.voiceToken}` },
      body: JSON.stringify(INITIALIZE),
    });
    expect(ok.status).toBe(200);
    expect((await ok.json()).result.serverInfo.name).toBe('dental-clinic-api');
    const get = await fetch(`${server.url}/mcp`, { headers: { authorization: `Bearer ${demo.voiceToken}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('names the endpoint, its transport and its authentication at /.well-known/mcp.json', async () => {
    const res = await server.call('GET', '/.well-known/mcp.json');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ endpoint: '/mcp', transport: { type: 'streamable-http', stateless: true }, authentication: { type: 'bearer' } });
  });

  it('lists the voice agent’s tools with schemas, annotations and model-facing descriptions', async () => {
    const tools = await listTools(server.url, demo.voiceToken);
    const names = tools.map((t) => t.name);
    for (const name of [
      'get_caller_context',
      'search_patients',
      'list_services',
      'find_slots',
      'hold_slot',
      'release_hold',
      'book_appointment',
      'reschedule_appointment',
      'cancel_appointment',
      'list_patient_appointments',
      'create_lead',
      'log_call',
      'hand_off',
    ]) {
      expect(names).toContain(name);
    }
    // The chat bot's own tools are not a voice agent's.
    expect(names).not.toContain('get_conversation_messages');
    expect(names).not.toContain('set_bot_state');
    const find = tools.find((t) => t.name === 'find_slots')!;
    // A read states no destructive or idempotent hint: MCP reads them only when readOnlyHint is false.
    expect(find.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(find.inputSchema.required).toEqual(['calendarId']);
    expect(Object.keys(find.inputSchema.properties!)).toEqual(expect.arrayContaining(['calendarId', 'from', 'to', 'spread', 'limit']));
    expect(find.outputSchema?.properties).toHaveProperty('emptyReason');
    expect(find.description).toContain('Europe/Rome');
    const book = tools.find((t) => t.name === 'book_appointment')!;
    expect(book.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true, openWorldHint: false });
    expect(book.inputSchema.properties).toHaveProperty('callId');
    expect(tools.find((t) => t.name === 'cancel_appointment')!.annotations?.destructiveHint).toBe(true);
  });

  it('runs a whole phone call through tools, a new connection per call', async () => {
    const key = demo.voiceToken;
    const context = await callTool(server.url, key, 'get_caller_context', { from: '+39 333 123 4567', to: '02 1234 5678' });
    expect(context.isError).toBeFalsy();
    expect(context.content[0]!.text).toMatch(/^Now at the clinic: /);
    const patientId = context.structuredContent.caller.patients[0].id;
    expect(context.structuredContent.caller.patients[0].firstName).toBe('Giulia');

    // An agent gets a patient only once confirmed by a second detail (her date of birth in the demo).
    const search = await callTool(server.url, key, 'search_patients', { q: 'Giulia Rossi', birthDate: '1988-04-12' });
    expect(search.structuredContent.data[0].id).toBe(patientId);
    // The name as a voice platform's speech-to-text writes it: lower case, surname first, one letter heard wrong.
    for (const q of ['giulia rossi', 'Rossi Giulia', 'Giulia Rosi']) {
      const heard = await callTool(server.url, key, 'search_patients', { q, phoneLast: '4567' });
      expect(heard.structuredContent.confirmed, q).toBe(true);
      expect(heard.structuredContent.data[0]?.id, q).toBe(patientId);
    }

    const services = await callTool(server.url, key, 'list_services', {});
    const calendar = services.structuredContent.data.find((c: { keywords: string[] }) => c.keywords.includes('pulizia'));
    const slots = await callTool(server.url, key, 'find_slots', { calendarId: calendar.id, spread: 'day', limit: 3 });
    expect(slots.structuredContent.data).toHaveLength(3);
    expect(new Set(slots.structuredContent.data.map((s: { localDate: string }) => s.localDate)).size).toBe(3);
    const start = slots.structuredContent.data[0].start;

    const callId = `call-${Date.now()}`;
    const hold = await callTool(server.url, key, 'hold_slot', { calendarId: calendar.id, start, holderRef: callId, ttlSeconds: 120, callId });
    expect(hold.isError).toBeFalsy();
    const before = await count('appointments', demo.liveClinicId);
    const booked = await callTool(server.url, key, 'book_appointment', { holdId: hold.structuredContent.id, patientId, callId });
    expect(booked.structuredContent).toMatchObject({ status: 'scheduled', origin: 'voice', patientId, start });
    expect(await count('appointments', demo.liveClinicId)).toBe(before + 1);

    const mine = await callTool(server.url, key, 'list_patient_appointments', { patientId, sort: 'start', from: new Date().toISOString() });
    expect(mine.structuredContent.data.map((a: { id: string }) => a.id)).toContain(booked.structuredContent.id);

    const logged = await callTool(server.url, key, 'log_call', {
      externalCallId: callId,
      direction: 'inbound',
      from: '+39 333 123 4567',
      to: '02 1234 5678',
      outcome: 'booked',
      patientId,
      callId,
    });
    expect(logged.structuredContent).toMatchObject({ outcome: 'booked', patientId });
  });

  it('answers a retried writing tool with its first result and writes nothing more, by X-Call-Id or callId', async () => {
    const key = demo.voiceToken;
    const services = await callTool(server.url, key, 'list_services', {});
    const calendar = services.structuredContent.data.find((c: { keywords: string[] }) => c.keywords.includes('pulizia'));
    const slots = await callTool(server.url, key, 'find_slots', { calendarId: calendar.id, spread: 'day', limit: 3 });
    const start = slots.structuredContent.data[1].start;
    const patientId = (await callTool(server.url, key, 'search_patients', { q: 'Giulia Rossi', birthDate: '1988-04-12' })).structuredContent.data[0].id;
    const callId = `retry-${Date.now()}`;
    const viaHeader = { headers: { 'x-call-id': callId } };
    const clinic = demo.liveClinicId;

    const writes: [string, Record<string, unknown>, 'appointments' | 'calls' | 'leads' | 'tasks' | 'slot_holds'][] = [
      ['hold_slot', { calendarId: calendar.id, start, holderRef: callId }, 'slot_holds'],
      ['create_lead', { firstName: 'Anna', phone: '+39 347 555 0101', source: 'phone' }, 'leads'],
      ['log_call', { externalCallId: callId, direction: 'inbound', from: '+39 347 555 0101', to: '02 1234 5678', outcome: 'information' }, 'calls'],
      ['hand_off', { reason: 'patient_request', summary: 'Vuole parlare con la segreteria' }, 'tasks'],
    ];
    for (const [tool, args, table] of writes) {
      const first = await callTool(server.url, key, tool, args, viaHeader);
      expect(first.isError, `${tool}: ${first.content[0]?.text}`).toBeFalsy();
      const rows = await count(table, clinic);
      // Retell retries twice, Bland up to four times: each retry answers the first result.
      for (let retry = 0; retry < 2; retry++) {
        const again = await callTool(server.url, key, tool, args, viaHeader);
        expect(again.structuredContent, tool).toEqual(first.structuredContent);
      }
      expect(await count(table, clinic), tool).toBe(rows);
    }
    // The booking of the held slot, retried with callId as an argument: one appointment.
    const hold = await callTool(server.url, key, 'hold_slot', { calendarId: calendar.id, start, holderRef: callId }, viaHeader);
    const before = await count('appointments', clinic);
    const args = { calendarId: calendar.id, start, patientId, holdId: hold.structuredContent.id, callId };
    const first = await callTool(server.url, key, 'book_appointment', args);
    const again = await callTool(server.url, key, 'book_appointment', args);
    expect(again.structuredContent.id).toBe(first.structuredContent.id);
    expect(await count('appointments', clinic)).toBe(before + 1);
  });

  it('turns an API error into a tool error a model can act on: every wrong argument, a taken slot’s alternatives', async () => {
    const key = demo.voiceToken;
    const bad = toolError(await callTool(server.url, key, 'find_slots', { calendarId: 'x', spread: 'week', limit: 'a', colour: 'red' }));
    expect(bad.code).toBe('invalid_request');
    expect(bad.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['calendarId', 'colour', 'limit', 'spread']);
    // A malformed id is no field to correct: the model is told where the id comes from.
    expect(bad.nextStep).toMatch(/`calendarId` names nothing this clinic knows: do not send the same id again/);
    expect(bad.nextStep).toMatch(/correct the arguments listed in details\.issues/);
    // An unknown patient is not a field to correct either: the id comes from the caller's number or a confirmed search.
    const someCalendar = (await callTool(server.url, key, 'list_services', {})).structuredContent.data[0].id;
    const stranger = toolError(
      await callTool(server.url, key, 'book_appointment', {
        calendarId: someCalendar,
        start: '2030-01-07T09:00',
        patientId: '00000000-0000-4000-8000-000000000000',
      }),
    );
    expect(stranger.details.issues.map((i: { path: string }) => i.path)).toContain('patientId');
    expect(stranger.nextStep).toMatch(/a patient’s id only from get_caller_context or a confirmed search_patients/);

    const services = await callTool(server.url, key, 'list_services', {});
    const calendar = services.structuredContent.data.find((c: { keywords: string[] }) => c.keywords.includes('pulizia'));
    const slots = await callTool(server.url, key, 'find_slots', { calendarId: calendar.id, spread: 'day', limit: 3 });
    const start = slots.structuredContent.data[2].start;
    const patients = (await callTool(server.url, key, 'search_patients', { q: 'Rossi', phoneLast: '4567' })).structuredContent.data;
    const first = await callTool(server.url, key, 'book_appointment', { calendarId: calendar.id, start, patientId: patients[0].id });
    expect(first.isError).toBeFalsy();
    // Another patient (found by the clinic's own key: an agent key gets no unconfirmed hit): the same patient would be answered its own appointment (a retry).
    const other = (await callTool(server.url, demo.liveToken, 'search_patients', { q: 'Bianchi' })).structuredContent.data[0];
    const taken = toolError(await callTool(server.url, key, 'book_appointment', { calendarId: calendar.id, start, patientId: other.id, callId: 'another' }));
    expect(taken.code).toBe('no_availability');
    expect(taken.details.reason).toBe('slot_taken');
    expect(taken.details.alternatives.length).toBeGreaterThan(0);
    expect(taken.nextStep).toMatch(/alternatives/);

    const unknown = toolError(await callTool(server.url, key, 'drop_database', {}));
    expect(unknown.code).toBe('not_found');
  });
});

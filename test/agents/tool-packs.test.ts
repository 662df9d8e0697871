/** Tool packs for REST platforms and Vapi's tool-calls runner. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoClinic } from '../../src/demo/clinic.js';
import { startDemoServer, type TestServer } from '../helpers/server.js';
import { listTools } from './mcp-client.js';

let server: TestServer;
let demo: DemoClinic;

beforeAll(async () => {
  ({ server, demo } = await startDemoServer());
}, 60_000);
afterAll(() => server.close());

function vapi(toolCalls: { id: string; name: string; arguments: unknown }[], callId = 'vapi-call-1', token = demo.voiceToken) {
  return server.call('POST', '/v1/agent-tools/vapi', {
    token,
    body: {
      message: {
        type: 'tool-calls',
        call: { id: callId },
        toolCallList: toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
      },
    },
  });
}

describe('tool packs', () => {
  it('gives each platform the key’s tools in its format, from the same registry as /mcp', async () => {
    const mcp = await listTools(server.url, demo.voiceToken);
    for (const platform of ['openai', 'vapi', 'retell', 'elevenlabs']) {
      const res = await server.call('GET', `/v1/agent-tools?platform=${platform}`, { token: demo.voiceToken });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.map((t: { name: string }) => t.name)).toEqual(mcp.map((t) => t.name));
    }
    const openai = (await server.call('GET', '/v1/agent-tools?platform=openai', { token: demo.voiceToken })).body.data;
    const find = openai.find((t: { name: string }) => t.name === 'find_slots');
    expect(find.operation).toEqual({ method: 'GET', path: '/v1/calendars/{calendarId}/availability', operationId: 'getCalendarAvailability' });
    // OpenAI: strict (no callId: X-Call-Id carries it), and the runner to send the arguments to.
    expect(find.definition).toMatchObject({ type: 'function', name: 'find_slots', strict: true });
    expect(Object.keys(find.definition.parameters.properties)).toEqual(Object.keys(mcp.find((t) => t.name === 'find_slots')!.inputSchema.properties ?? {}));
    expect(find.endpoint).toMatchObject({ method: 'POST', url: `${server.url}/v1/agent-tools/run/find_slots` });
    const vapiPack = (await server.call('GET', '/v1/agent-tools?platform=vapi&tools=book_appointment', { token: demo.voiceToken })).body.data;
    expect(vapiPack).toHaveLength(1);
    expect(vapiPack[0].definition.server.url).toBe(`${server.url}/v1/agent-tools/vapi`);
    expect(vapiPack[0].definition.function.parameters.properties.callId).toBeUndefined();
    const eleven = (await server.call('GET', '/v1/agent-tools?platform=elevenlabs&tools=hold_slot', { token: demo.voiceToken })).body.data[0];
    expect(eleven.definition.api_schema).toMatchObject({
      url: `${server.url}/v1/agent-tools/run/hold_slot`,
      method: 'POST',
      request_headers: { 'X-Call-Id': '{{system__conversation_id}}' },
    });
    // holderRef is the call's id, which the runner fills from the platform's (callIdAs): not shown.
    expect(Object.keys(eleven.definition.api_schema.request_body_schema.properties)).toEqual(['calendarId', 'start', 'doctorId', 'ttlSeconds']);
    expect(eleven.definition.api_schema.request_body_schema.required).toEqual(['calendarId', 'start']);
    // Retell: every tool at its runner by POST, whatever the REST path and method.
    const retell = (await server.call('GET', '/v1/agent-tools?platform=retell', { token: demo.voiceToken })).body.data;
    for (const t of retell)
      expect(t.definition).toMatchObject({ type: 'custom', url: `${server.url}/v1/agent-tools/retell`, method: 'POST', args_at_root: false });
    expect(retell.some((t: { definition: { parameters: { properties: object } } }) => 'callId' in t.definition.parameters.properties)).toBe(false);
    const bad = await server.call('GET', '/v1/agent-tools?platform=bland', { token: demo.voiceToken });
    expect(bad.status).toBe(400);
  });

  it('runs Vapi tool calls and always answers 200 with one-line results or errors', async () => {
    const services = await vapi([{ id: 't1', name: 'list_services', arguments: {} }]);
    expect(services.status).toBe(200);
    const list = JSON.parse(services.body.results[0].result);
    const calendar = list.data.find((c: { keywords: string[] }) => c.keywords.includes('pulizia'));
    const res = await vapi([
      { id: 't2', name: 'find_slots', arguments: JSON.stringify({ calendarId: calendar.id, spread: 'day', limit: 2 }) },
      { id: 't3', name: 'find_slots', arguments: { calendarId: 'nope' } },
      { id: 't4', name: 'no_such_tool', arguments: {} },
      { id: 't5', name: 'find_slots', arguments: '{not json' },
    ]);
    expect(res.status).toBe(200);
    const [slots, bad, unknown, broken] = res.body.results;
    expect(slots.toolCallId).toBe('t2');
    expect(JSON.parse(slots.result).data).toHaveLength(2);
    for (const r of res.body.results) expect(r.result ?? r.error).not.toMatch(/\n/);
    expect(JSON.parse(bad.error)).toMatchObject({ code: 'invalid_request', details: { issues: [{ path: 'calendarId' }] } });
    expect(JSON.parse(unknown.error).code).toBe('not_found');
    expect(JSON.parse(broken.error).code).toBe('invalid_request');
  });

  it('answers every Vapi tool call, a malformed one and one beyond the limit too, each by its id', async () => {
    const res = await server.call('POST', '/v1/agent-tools/vapi', {
      token: demo.voiceToken,
      body: {
        message: {
          type: 'tool-calls',
          toolCallList: [
            { name: 'list_services', arguments: {} },
            { id: 'no-name', arguments: {} },
            { id: 'array-args', name: 'list_services', arguments: [1, 2] },
            'not an object',
            ...Array.from({ length: 16 }, (_, i) => ({ id: `ok-${i}`, name: 'list_services', arguments: {} })),
            { id: 'over-1', name: 'list_services', arguments: {} },
            { id: 'over-2', name: 'list_services', arguments: {} },
          ],
        },
      },
    });
    expect(res.status, res.text).toBe(200);
    const results: { toolCallId: string; result?: string; error?: string }[] = res.body.results;
    expect(results).toHaveLength(22);
    expect(results.map((r) => r.toolCallId).slice(0, 4)).toEqual(['#1', 'no-name', 'array-args', '#4']);
    const issues = (r: { error?: string }) => JSON.parse(r.error!).details.issues.map((i: { path: string }) => i.path);
    expect(issues(results[0]!)).toEqual(['id']);
    expect(issues(results[1]!)).toEqual(['name']);
    expect(issues(results[2]!)).toEqual(['arguments']);
    expect(issues(results[3]!)).toEqual(['id', 'name']);
    expect(results.slice(4, 20).filter((r) => r.result === undefined)).toEqual([]);
    expect(results.slice(20).map((r) => [r.toolCallId, JSON.parse(r.error!)])).toEqual([
      ['over-1', expect.objectContaining({ code: 'too_many_tool_calls', details: { limit: 20, position: 21 } })],
      ['over-2', expect.objectContaining({ code: 'too_many_tool_calls', details: { limit: 20, position: 22 } })],
    ]);
    // Not a Vapi message at all: 400.
    const bad = await server.call('POST', '/v1/agent-tools/vapi', { token: demo.voiceToken, body: { message: { type: 'tool-calls' } } });
    expect(bad.status).toBe(400);
  });

  it('a retried Vapi tool call of the same call writes nothing more', async () => {
    const args = { firstName: 'Marta', phone: '+39 348 000 1111', source: 'phone' };
    const first = await vapi([{ id: 'a', name: 'create_lead', arguments: args }], 'vapi-retry');
    const again = await vapi([{ id: 'b', name: 'create_lead', arguments: args }], 'vapi-retry');
    expect(JSON.parse(again.body.results[0].result)).toEqual(JSON.parse(first.body.results[0].result));
    const leads = await server.ctx.db.selectFrom('leads').select('id').where('clinic_id', '=', demo.liveClinicId).where('first_name', '=', 'Marta').execute();
    expect(leads).toHaveLength(1);
  });

  it('answers ai_disabled in every result while the clinic’s AI is off, still with 200', async () => {
    await server.admin('PATCH', `/admin/v1/clinics/${demo.liveClinicId}`, { aiEnabled: false });
    try {
      let res = await vapi([{ id: 'x', name: 'list_services', arguments: {} }]);
      for (let i = 0; i < 60 && res.body.results[0].result; i++) {
        await new Promise((r) => setTimeout(r, 50));
        res = await vapi([{ id: 'x', name: 'list_services', arguments: {} }]);
      }
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body.results[0].error)).toMatchObject({ code: 'forbidden', details: { reason: 'ai_disabled' } });
    } finally {
      await server.admin('PATCH', `/admin/v1/clinics/${demo.liveClinicId}`, { aiEnabled: true });
    }
  });
});

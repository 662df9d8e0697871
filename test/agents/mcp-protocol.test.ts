/**
 * The JSON-RPC edges of /mcp as clients we did not write send them: notifications, tool calls
 * whose params or arguments are wrong, and the read-only switch in each spelling.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoClinic } from '../../src/demo/clinic.js';
import { startDemoServer, type TestServer } from '../helpers/server.js';
import { listTools, type McpOptions } from './mcp-client.js';

let server: TestServer;
let demo: DemoClinic;

beforeAll(async () => {
  ({ server, demo } = await startDemoServer());
}, 60_000);
afterAll(() => server.close());

async function rpc(body: unknown, options: { query?: string; headers?: Record<string, string> } = {}) {
  const res = await fetch(`${server.url}/mcp${options.query ?? ''}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${demo.voiceToken}`,
      ...options.headers,
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), text, json: text.length > 0 ? JSON.parse(text) : undefined };
}

describe('MCP protocol edges', () => {
  it('answers a notification 202 with no body', async () => {
    const res = await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
    expect(res.contentType).toBeNull();
  });

  it('answers tools/call params of the wrong shape with -32602 naming each wrong field, never -32603', async () => {
    const cases: [unknown, string[]][] = [
      [{ name: 'find_slots', arguments: 'calendarId=1' }, ['params.arguments']],
      [{ name: 'find_slots', arguments: [1] }, ['params.arguments']],
      [{ arguments: {} }, ['params.name']],
      [{ name: 42, arguments: null }, ['params.name', 'params.arguments']],
      [null, ['params']],
    ];
    let id = 10;
    for (const [params, paths] of cases) {
      const res = await rpc({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params });
      expect(res.status).toBe(200);
      expect(res.json.id).toBe(id);
      expect(res.json.error.code, JSON.stringify(params)).toBe(-32602);
      expect(res.json.error.data.issues.map((i: { path: string }) => i.path)).toEqual(paths);
    }
  });

  it('answers arguments that fail the tool’s schema as isError invalid_request naming every wrong field', async () => {
    const res = await rpc({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'find_slots', arguments: { calendarId: 5, limit: 'tre', colour: 'red' } },
    });
    expect(res.json.error).toBeUndefined();
    expect(res.json.result.isError).toBe(true);
    const payload = JSON.parse(res.json.result.content[0].text.split('\n').slice(1).join('\n'));
    expect(payload.code).toBe('invalid_request');
    expect(payload.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['calendarId', 'colour', 'limit']);
  });

  it('reads readonly as 1 or true, in the query and in the header alike', async () => {
    const all = (await listTools(server.url, demo.voiceToken)).map((t) => t.name);
    expect(all).toContain('book_appointment');
    for (const options of <McpOptions[]>[
      { query: 'readonly=1' },
      { query: 'readonly=true' },
      { headers: { 'x-mcp-readonly': '1' } },
      { headers: { 'X-MCP-Readonly': 'TRUE' } },
    ]) {
      const names = (await listTools(server.url, demo.voiceToken, options)).map((t) => t.name);
      expect(names, JSON.stringify(options)).not.toContain('book_appointment');
      expect(names).toContain('find_slots');
    }
    for (const options of <McpOptions[]>[{ query: 'readonly=0' }, { query: 'readonly=false' }, { headers: { 'x-mcp-readonly': '0' } }]) {
      expect(
        (await listTools(server.url, demo.voiceToken, options)).map((t) => t.name),
        JSON.stringify(options),
      ).toContain('book_appointment');
    }
    // The packs read it alike.
    for (const readonly of ['1', 'true']) {
      const pack = await server.call('GET', `/v1/agent-tools?platform=openai&readonly=${readonly}`, { token: demo.voiceToken });
      expect(pack.status).toBe(200);
      expect(pack.body.data.map((t: { name: string }) => t.name)).not.toContain('book_appointment');
    }
    const wrong = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, { query: '?readonly=maybe' });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error.details.issues[0].path).toBe('readonly');
  });
});

/**
 * bench/lib/mcp-step.ts: the light client bench:voice sends its MCP steps with is read against the
 * SDK's own client. Both send the same requests and read the same answers: a result, a refusal
 * with its code, and an error of the arguments.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpSession, mcpStep } from '../../bench/lib/mcp-step.js';
import type { DemoClinic } from '../../src/demo/clinic.js';
import { startDemoServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let demo: DemoClinic;

beforeAll(async () => {
  ({ server, demo } = await startDemoServer());
}, 60_000);
afterAll(() => server.close());

describe('the benchmarks MCP step', () => {
  it('answers as the SDK client does: data, a taken slot, wrong arguments', async () => {
    const url = `${server.url}/mcp`;
    const both = async (tool: string, args: Record<string, unknown>) =>
      Promise.all([mcpStep<any>(url, demo.voiceToken, tool, args, 'sdk'), mcpStep<any>(url, demo.voiceToken, tool, args, 'light')]);

    const [sdkServices, lightServices] = await both('list_services', {});
    expect(sdkServices.status).toBe(200);
    expect(sdkServices.body.data.length).toBeGreaterThan(0);
    expect(lightServices).toEqual(sdkServices);

    const calendarId = sdkServices.body.data[0].id as string;
    const from = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const slots = await mcpStep<any>(url, demo.voiceToken, 'find_slots', { calendarId, from, limit: 1 }, 'light');
    expect(slots.status).toBe(200);
    const start = slots.body.data[0].start as string;
    const held = await mcpStep<any>(url, demo.voiceToken, 'hold_slot', { calendarId, start, holderRef: 'bench-test' }, 'light');
    expect(held.status).toBe(201);
    // Two callers (two holders: the same holderRef would be one call's retry, answered idempotency_in_progress).
    const [sdkTaken, lightTaken] = await Promise.all([
      mcpStep<any>(url, demo.voiceToken, 'hold_slot', { calendarId, start, holderRef: 'bench-test-sdk' }, 'sdk'),
      mcpStep<any>(url, demo.voiceToken, 'hold_slot', { calendarId, start, holderRef: 'bench-test-light' }, 'light'),
    ]);
    expect(sdkTaken.status).toBe(409);
    expect(lightTaken.status).toBe(409);

    const [sdkWrong, lightWrong] = await both('find_slots', { calendarId: 'nope', limit: 'many' });
    expect(sdkWrong.status).toBe(400);
    expect(lightWrong.status).toBe(400);
  });

  it('keeps one session for a phone call: initialize once, then one request per tool, with either client', async () => {
    const url = `${server.url}/mcp`;
    for (const client of ['light', 'sdk'] as const) {
      const session = await mcpSession(url, demo.voiceToken, client);
      try {
        const services = await session.call<any>('list_services', {});
        expect(services.status).toBe(200);
        const slots = await session.call<any>('find_slots', { calendarId: services.body.data[0].id, limit: 2 });
        expect(slots.status, client).toBe(200);
        expect(slots.body.data.length).toBeGreaterThan(0);
        expect((await session.call<any>('find_slots', { calendarId: 'nope' })).status).toBe(400);
      } finally {
        await session.close();
      }
    }
  });
});

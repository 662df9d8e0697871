/**
 * What a model reads from the agent tools, reviewed as a surface: every tool checked against its
 * operation's route when the app is built; each key's tools as `tools/list` shows them, kept as
 * snapshots (a change to what a model reads shows in review); no description or next step naming
 * a tool the connection cannot call; the voice key's list small enough to fetch at every session;
 * docs/agents.md generated from the same registry.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { agentsDoc, AGENTS_DOC } from '../../scripts/agents-doc.js';
import { AGENT_TOOLS, toolsNamed } from '../../src/agents/registry.js';
import { nextStep } from '../../src/agents/results.js';
import type { DemoClinic } from '../../src/demo/clinic.js';
import { checkToolOperations } from '../../src/http/routes/agent-perform.js';
import { createApiKey } from '../../src/modules/auth/keys-service.js';
import { startDemoServer, type TestServer } from '../helpers/server.js';
import { listTools } from './mcp-client.js';

let server: TestServer;
let demo: DemoClinic;
let chatToken: string;

beforeAll(async () => {
  ({ server, demo } = await startDemoServer());
  const scopes = ['appointments:read', 'appointments:write', 'patients:read', 'leads:write', 'messages:read', 'messages:write', 'clinic:read'];
  chatToken = (await createApiKey(server.ctx.db, demo.liveClinicId, { name: 'chat bot', scopes, agent: 'chat_bot' })).token;
}, 60_000);
afterAll(() => server.close());

describe('the tools against their routes', () => {
  it('finds every tool’s operation, operationId and schemas in its route', () => {
    expect(() => checkToolOperations(server.app.plannedRoutes)).not.toThrow();
  });

  it('refuses to start with a tool whose operation, operationId or schemas drifted from its route', () => {
    const find = AGENT_TOOLS.find((t) => t.name === 'find_slots')!;
    const book = AGENT_TOOLS.find((t) => t.name === 'book_appointment')!;
    const drifted = [
      { ...find, operation: { ...find.operation, url: '/v1/calendars/:id/free' } },
      { ...find, operation: { ...find.operation, operationId: 'findSlots' } },
      { ...book, body: Type.Object({ patientId: Type.String() }, { additionalProperties: false }) },
    ];
    expect(() => checkToolOperations(server.app.plannedRoutes, drifted)).toThrow(
      /find_slots: no v1 route GET \/v1\/calendars\/:id\/free\nfind_slots: operationId findSlots, the route's is getCalendarAvailability\nbook_appointment: its body schema is not its route's/,
    );
  });
});

describe('what each key’s model reads', () => {
  const keys = () => ({ voice: demo.voiceToken, chat: chatToken, plain: demo.liveToken });

  it('matches the reviewed snapshot of each key’s tools: names, descriptions, schemas, annotations', async () => {
    for (const [kind, token] of Object.entries(keys())) {
      const tools = await listTools(server.url, token);
      await expect(JSON.stringify(tools, null, 2) + '\n').toMatchFileSnapshot(`./__snapshots__/tools-${kind}.json`);
    }
  });

  it('never names a tool the connection cannot call, in a description or a next step', async () => {
    const errors = [
      { code: 'conflict', message: '', details: { reason: 'cancellation_notice' } },
      { code: 'forbidden', message: '', details: { reason: 'not_bookable_by_agent' } },
      { code: 'insufficient_scope', message: '', details: null },
      { code: 'internal_error', message: '', details: null },
      { code: 'no_availability', message: '', details: { reason: 'slot_taken' } },
      { code: 'conflict', message: '', details: { reason: 'hold_limit' } },
      {
        code: 'invalid_request',
        message: '',
        details: {
          issues: [
            { path: 'patientId', message: '' },
            { path: 'holdId', message: '' },
          ],
        },
      },
    ];
    for (const [kind, token] of Object.entries(keys())) {
      for (const options of [{}, { query: 'readonly=true' }, { query: 'tools=find_slots,hold_slot,book_appointment' }]) {
        const tools = await listTools(server.url, token, options);
        const names = new Set(tools.map((t) => t.name));
        for (const tool of tools) for (const named of toolsNamed(tool.description!)) expect(names, `${kind} ${tool.name} names ${named}`).toContain(named);
        for (const error of errors)
          for (const named of toolsNamed(nextStep(error, names))) expect(names, `${kind} ${error.code} names ${named}`).toContain(named);
      }
    }
    // The voice key has no create_task: find_slots sends it to the waitlist or a person instead.
    const voice = await listTools(server.url, demo.voiceToken);
    expect(voice.map((t) => t.name)).not.toContain('create_task');
    expect(voice.find((t) => t.name === 'find_slots')!.description).toMatch(/add_to_waitlist/);
  });

  it('keeps the voice key’s tools/list under 40 KB, every tool with an output schema', async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${demo.voiceToken}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    const text = await res.text();
    expect(Buffer.byteLength(text)).toBeLessThan(40_000);
    for (const tool of JSON.parse(text).result.tools) expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
  });

  it('states the hints a platform relies on: destructive moves, idempotent only where a plain retry is', async () => {
    const tools = new Map((await listTools(server.url, demo.liveToken)).map((t) => [t.name, t.annotations!]));
    for (const name of ['reschedule_appointment', 'cancel_appointment']) expect(tools.get(name)!.destructiveHint, name).toBe(true);
    for (const name of ['create_lead', 'create_task', 'add_to_waitlist', 'hold_slot', 'log_recall_attempt'])
      expect(tools.get(name)!.idempotentHint, name).toBe(false);
    for (const name of ['book_appointment', 'cancel_appointment', 'release_hold', 'log_call', 'hand_off'])
      expect(tools.get(name)?.idempotentHint ?? true, name).toBe(true);
  });

  it('shows callId as the call’s id on every writing tool, never its aliases', async () => {
    const tools = await listTools(server.url, demo.voiceToken);
    for (const tool of tools.filter((t) => !t.annotations!.readOnlyHint)) {
      const properties = Object.keys(tool.inputSchema.properties ?? {});
      expect(properties, tool.name).toContain('callId');
      expect(properties, tool.name).not.toContain('holderRef');
      expect(properties, tool.name).not.toContain('externalCallId');
    }
    expect(tools.find((t) => t.name === 'log_call')!.inputSchema.required).toContain('callId');
  });
});

describe('docs/agents.md', () => {
  it('is what npm run docs:agents writes from the registry and the routes', () => {
    expect(fs.readFileSync(AGENTS_DOC, 'utf8'), 'docs/agents.md is stale: run npm run docs:agents').toBe(agentsDoc(server.app.plannedRoutes));
  });
});

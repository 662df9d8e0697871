/**
 * Each platform's own request, replayed against the server: the shapes of test/fixtures/platforms/
 * (one per documented shape, each naming the public page it was made from), checked to answer in
 * the form the platform reads. And the packs checked against each platform's schema rules: OpenAI's
 * strict mode, ElevenLabs' webhook dialect.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoClinic } from '../../src/demo/clinic.js';
import { retellSignature } from '../../src/http/routes/v1/agent-tools-retell.js';
import { startDemoServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let demo: DemoClinic;
let calendarId: string;

const FIXTURES = join(import.meta.dirname, '../fixtures/platforms');

beforeAll(async () => {
  ({ server, demo } = await startDemoServer());
  const calendars = await server.call('GET', '/v1/calendars', { token: demo.voiceToken });
  calendarId = calendars.body.data.find((c: { keywords: string[] }) => c.keywords.includes('pulizia')).id;
}, 60_000);
afterAll(() => server.close());

let n = 0;
/** A fixture with the demo's calendar and a fresh call id in place of its placeholders. */
function fixture(name: string): { source: string; request: any } {
  const text = readFileSync(join(FIXTURES, `${name}.json`), 'utf8')
    .replaceAll('{{calendarId}}', calendarId)
    .replaceAll('{{callId}}', `fixture-call-${++n}`);
  return JSON.parse(text);
}

describe('platform fixtures', () => {
  it('each names the public page it was made from', () => {
    const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(7);
    for (const f of files)
      expect(JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')).source, f).toMatch(
        /^https:\/\/(docs\.vapi\.ai|docs\.retellai\.com|elevenlabs\.io|platform\.openai\.com)\//,
      );
  });
});

describe('Vapi', () => {
  /** Vapi's documented answer: 200, `results` with one `{toolCallId, result|error}` per tool call, strings on one line. */
  function expectVapiAnswer(res: { status: number; body: any; text: string }, ids: string[]) {
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body)).toEqual(['results']);
    expect(res.body.results.map((r: { toolCallId: string }) => r.toolCallId)).toEqual(ids);
    for (const r of res.body.results) {
      expect(Object.keys(r).sort()).toEqual(r.result !== undefined ? ['result', 'toolCallId'] : ['error', 'toolCallId']);
      expect(typeof (r.result ?? r.error)).toBe('string');
      expect(r.result ?? r.error).not.toMatch(/\n/);
    }
  }

  it('runs the tool-calls message as the docs show it (name and arguments at the top of each entry)', async () => {
    const { request } = fixture('vapi-tool-calls');
    const res = await server.call('POST', '/v1/agent-tools/vapi', { token: demo.voiceToken, body: request });
    expectVapiAnswer(res, ['toolu_01DTPAzUm5Gk3zxrpJ969oMF']);
    expect(JSON.parse(res.body.results[0].result).data).toHaveLength(2);
  });

  it('runs the OpenAI-style entries, arguments as JSON text', async () => {
    const { request } = fixture('vapi-tool-calls-function');
    const res = await server.call('POST', '/v1/agent-tools/vapi', { token: demo.voiceToken, body: request });
    expectVapiAnswer(res, ['call_VaJcPZ8b1vQ2xY', 'call_Wb3kLm9nPq2rSt']);
    expect(JSON.parse(res.body.results[1].result).data).toHaveLength(1);
  });

  it('runs a message with only toolWithToolCallList', async () => {
    const { request } = fixture('vapi-tool-with-tool-call-list');
    const res = await server.call('POST', '/v1/agent-tools/vapi', { token: demo.voiceToken, body: request });
    expectVapiAnswer(res, ['call_Xc4nM0pQr3sTu']);
    expect(JSON.parse(res.body.results[0].result).data.length).toBeGreaterThan(0);
  });
});

describe('Retell', () => {
  it('runs the custom-function body {name, call, args} and answers 200 with the result', async () => {
    const { request } = fixture('retell-custom-function');
    const res = await server.call('POST', '/v1/agent-tools/retell', { token: demo.voiceToken, body: request });
    expect(res.status, res.text).toBe(200);
    expect(res.body.result.data).toHaveLength(2);
    // A tool error is a 200 too, the body the model reads.
    const wrong = await server.call('POST', '/v1/agent-tools/retell', { token: demo.voiceToken, body: { ...request, args: { calendarId: 'nope' } } });
    expect(wrong.status).toBe(200);
    expect(wrong.body.error).toMatchObject({ code: 'invalid_request', details: { issues: [{ path: 'calendarId' }] } });
    expect(wrong.body.error.nextStep).toMatch(/`calendarId` names nothing this clinic knows/);
  });

  it('runs the args-at-root body with the tool named by the path', async () => {
    const { request } = fixture('retell-args-at-root');
    const res = await server.call('POST', '/v1/agent-tools/retell/find_slots', { token: demo.voiceToken, body: request });
    expect(res.status, res.text).toBe(200);
    expect(res.body.result.data).toHaveLength(2);
  });

  it('takes call.call_id as the call id: a retried writing function writes nothing more', async () => {
    const body = { name: 'create_lead', call: { call_id: 'retell-retry-1' }, args: { firstName: 'Giulia', phone: '+39 348 000 2222', source: 'phone' } };
    const first = await server.call('POST', '/v1/agent-tools/retell', { token: demo.voiceToken, body });
    const again = await server.call('POST', '/v1/agent-tools/retell', { token: demo.voiceToken, body });
    expect(first.status, first.text).toBe(200);
    expect(again.body.result).toEqual(first.body.result);
    const leads = await server.ctx.db.selectFrom('leads').select('id').where('clinic_id', '=', demo.liveClinicId).where('first_name', '=', 'Giulia').execute();
    expect(leads).toHaveLength(1);
  });

  it('verifies X-Retell-Signature once the clinic has set its Retell key', async () => {
    const secret = 'key_9f8e7d6c5b4a3f2e1d0c9b8a';
    const set = await server.admin('PATCH', `/admin/v1/clinics/${demo.liveClinicId}`, { retellSecret: secret });
    expect(set.status, set.text).toBe(200);
    expect(set.body.retellSecretSet).toBe(true);
    expect(JSON.stringify(set.body)).not.toContain(secret);
    try {
      const { request } = fixture('retell-custom-function');
      const raw = JSON.stringify(request);
      const call = (signature: string | undefined) =>
        server.call('POST', '/v1/agent-tools/retell', {
          token: demo.voiceToken,
          rawBody: raw,
          headers: { 'content-type': 'application/json', ...(signature ? { 'x-retell-signature': signature } : {}) },
        });
      const good = await call(retellSignature(secret, raw, Date.now()));
      expect(good.status, good.text).toBe(200);
      expect(good.body.result.data).toHaveLength(2);
      for (const bad of [
        undefined,
        retellSignature('key_another', raw, Date.now()),
        retellSignature(secret, raw, Date.now() - 10 * 60_000),
        retellSignature(secret, `${raw} `, Date.now()),
        'v=1,d=zz',
      ]) {
        const res = await call(bad);
        expect(res.status, String(bad)).toBe(401);
        expect(res.body.error).toMatchObject({ code: 'unauthenticated', details: { reason: 'retell_signature_invalid' } });
      }
    } finally {
      const off = await server.admin('PATCH', `/admin/v1/clinics/${demo.liveClinicId}`, { retellSecret: null });
      expect(off.body.retellSecretSet).toBe(false);
    }
    const { request } = fixture('retell-custom-function');
    expect((await server.call('POST', '/v1/agent-tools/retell', { token: demo.voiceToken, body: request })).status).toBe(200);
  });
});

describe('ElevenLabs', () => {
  it('runs a webhook tool call (body = arguments, X-Call-Id from system__conversation_id) and answers 200', async () => {
    const { request } = fixture('elevenlabs-webhook-tool');
    const res = await server.call('POST', '/v1/agent-tools/run/find_slots', { token: demo.voiceToken, headers: request.headers, body: request.body });
    expect(res.status, res.text).toBe(200);
    expect(res.body.result.data).toHaveLength(2);
    const unknown = await server.call('POST', '/v1/agent-tools/run/no_such_tool', { token: demo.voiceToken, body: {} });
    expect(unknown.status).toBe(200);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it('has a pack in its webhook dialect: only its keywords and types, every field described', async () => {
    const pack = (await server.call('GET', '/v1/agent-tools?platform=elevenlabs', { token: demo.liveToken })).body.data;
    expect(pack.length).toBeGreaterThan(15);
    const problems: string[] = [];
    const LITERALS = ['string', 'integer', 'number', 'boolean'];
    const check = (where: string, node: any) => {
      for (const key of Object.keys(node))
        if (!['type', 'description', 'enum', 'properties', 'required', 'items'].includes(key)) problems.push(`${where}: keyword ${key}`);
      if (typeof node.description !== 'string' || node.description.length === 0) problems.push(`${where}: no description`);
      if (node.type === 'object') {
        for (const [k, v] of Object.entries(node.properties ?? {})) check(`${where}.${k}`, v);
        for (const r of node.required ?? []) if (!(r in (node.properties ?? {}))) problems.push(`${where}: required ${r} not a property`);
      } else if (node.type === 'array') {
        if (!node.items) problems.push(`${where}: array without items`);
        else check(`${where}[]`, node.items);
      } else if (!LITERALS.includes(node.type)) problems.push(`${where}: type ${JSON.stringify(node.type)}`);
      if (node.enum && (node.type !== 'string' || !node.enum.every((v: unknown) => typeof v === 'string'))) problems.push(`${where}: enum on ${node.type}`);
    };
    for (const { name, definition } of pack) {
      expect(definition).toMatchObject({ type: 'webhook', name, api_schema: { method: 'POST', url: `${server.url}/v1/agent-tools/run/${name}` } });
      expect(definition.api_schema.request_headers['X-Call-Id']).toBe('{{system__conversation_id}}');
      if (definition.api_schema.request_body_schema) check(name, definition.api_schema.request_body_schema);
    }
    expect(problems).toEqual([]);
  });
});

/**
 * OpenAI's strict mode rules (Structured Outputs, "Supported schemas"): the root an object (not
 * anyOf); every object with additionalProperties false and every property in required; only the
 * supported keywords and string formats; at most 10 levels of nesting and 5000 properties; an enum
 * of a nullable field lists null.
 */
function strictProblems(name: string, root: any): string[] {
  const problems: string[] = [];
  const KEYWORDS = ['type', 'description', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'anyOf', 'pattern', 'format'];
  const KEYWORDS_MORE = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems', '$defs', '$ref'];
  const FORMATS = ['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'];
  const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];
  let properties = 0;
  const walk = (where: string, node: any, depth: number) => {
    if (depth > 10) problems.push(`${where}: nested deeper than 10`);
    for (const key of Object.keys(node)) if (![...KEYWORDS, ...KEYWORDS_MORE].includes(key)) problems.push(`${where}: keyword ${key}`);
    if (node.format !== undefined && !FORMATS.includes(node.format)) problems.push(`${where}: format ${node.format}`);
    const types: string[] = node.type === undefined ? [] : Array.isArray(node.type) ? node.type : [node.type];
    for (const t of types) if (!TYPES.includes(t)) problems.push(`${where}: type ${t}`);
    if (node.anyOf === undefined && types.length === 0 && node.enum === undefined && node.const === undefined) problems.push(`${where}: no type`);
    if (node.enum && types.includes('null') && !node.enum.includes(null)) problems.push(`${where}: nullable enum without null`);
    if (types.includes('object')) {
      const keys = Object.keys(node.properties ?? {});
      properties += keys.length;
      if (node.additionalProperties !== false) problems.push(`${where}: additionalProperties is not false`);
      if (JSON.stringify([...(node.required ?? [])].sort()) !== JSON.stringify([...keys].sort())) problems.push(`${where}: required is not every property`);
      for (const k of keys) walk(`${where}.${k}`, node.properties[k], depth + 1);
    }
    if (node.items) walk(`${where}[]`, node.items, depth + 1);
    for (const [i, s] of (node.anyOf ?? []).entries()) walk(`${where}|${i}`, s, depth);
  };
  if (root.type !== 'object' || root.anyOf) problems.push(`${name}: the root is not an object`);
  walk(name, root, 1);
  if (properties > 5000) problems.push(`${name}: more than 5000 properties`);
  return problems;
}

describe('OpenAI', () => {
  it('has every tool valid under strict: true, with the runner to call and how', async () => {
    const pack = (await server.call('GET', '/v1/agent-tools?platform=openai', { token: demo.liveToken })).body.data;
    expect(pack.length).toBeGreaterThan(15);
    const problems = pack.flatMap((t: { name: string; definition: { parameters: unknown } }) => strictProblems(t.name, t.definition.parameters));
    expect(problems).toEqual([]);
    for (const { name, definition, endpoint } of pack) {
      expect(definition).toMatchObject({ type: 'function', name, strict: true });
      expect(endpoint).toEqual({
        method: 'POST',
        url: `${server.url}/v1/agent-tools/run/${name}`,
        headers: { Authorization: 'Bearer <API key of the clinic>', 'Content-Type': 'application/json', 'X-Call-Id': '<id of the conversation>' },
      });
    }
    // The checker refuses what strict mode refuses.
    expect(strictProblems('t', { type: 'object', properties: { a: { type: 'string', maxLength: 3 } }, required: ['a'], additionalProperties: false })).toEqual([
      't.a: keyword maxLength',
    ]);
    expect(strictProblems('t', { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false })).toEqual([
      't: required is not every property',
    ]);
  });

  it('runs a strict function call’s arguments, nulls as not given, always 200', async () => {
    const { request } = fixture('openai-function-call');
    const res = await server.call('POST', `/v1/agent-tools/run/${request.name}`, {
      token: demo.voiceToken,
      headers: { 'x-call-id': request.call_id },
      body: JSON.parse(request.arguments),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.result.data).toHaveLength(2);
    // A writing tool with every optional argument null: created once per call id.
    const args = {
      firstName: 'Sara',
      lastName: null,
      email: null,
      phone: '+39 348 000 3333',
      source: 'phone',
      sourceDetail: null,
      status: null,
      notes: null,
      assignedTo: null,
      estimatedValue: null,
      nextFollowUpAt: null,
      facilityId: null,
    };
    const lead = await server.call('POST', '/v1/agent-tools/run/create_lead', {
      token: demo.voiceToken,
      headers: { 'x-call-id': 'openai-conv-1' },
      body: args,
    });
    expect(lead.status, lead.text).toBe(200);
    expect(lead.body.result).toMatchObject({ firstName: 'Sara' });
    const again = await server.call('POST', '/v1/agent-tools/run/create_lead', {
      token: demo.voiceToken,
      headers: { 'x-call-id': 'openai-conv-1' },
      body: args,
    });
    expect(again.body.result.id).toBe(lead.body.result.id);
    const bad = await server.call('POST', '/v1/agent-tools/run/find_slots', { token: demo.voiceToken, body: [1] });
    expect(bad.status).toBe(200);
    expect(bad.body.error).toMatchObject({ code: 'invalid_request', details: { issues: [{ path: 'arguments' }] } });
  });
});

/**
 * OpenAPI quality: both documents pass Redocly CLI (redocly.yaml) with zero errors, and every
 * operation says what an integrator needs: operationId, summary, a description of its rules,
 * tags, security, and its errors in the envelope (with an example).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redoclyLint } from '../../scripts/lint-openapi.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { withinOneWindow } from '../helpers/windows.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];
type Doc = Record<string, any>;

let server: TestServer;
const docs: Record<'v1' | 'admin', Doc> = { v1: {}, admin: {} };

beforeAll(async () => {
  server = await startTestServer();
  docs.v1 = (await server.call('GET', '/v1/openapi.json')).body;
  docs.admin = (await server.admin('GET', '/admin/v1/openapi.json')).body;
});
afterAll(() => server?.close());

function operationsOf(doc: Doc): { where: string; op: Doc }[] {
  const out: { where: string; op: Doc }[] = [];
  for (const [p, item] of Object.entries<Doc>(doc.paths ?? {})) {
    for (const method of METHODS) if (item[method]) out.push({ where: `${method.toUpperCase()} ${p}`, op: item[method] });
  }
  return out;
}

function resolve(doc: Doc, schema: Doc | undefined): Doc | undefined {
  if (!schema?.$ref) return schema;
  const name = String(schema.$ref).replace('#/components/schemas/', '');
  return doc.components?.schemas?.[name];
}

describe.each(['v1', 'admin'] as const)('%s OpenAPI document', (name) => {
  it('is OpenAPI 3.1 and passes Redocly lint with no errors', () => {
    const doc = docs[name];
    expect(doc.openapi).toBe('3.1.0');
    const result = redoclyLint(doc, name);
    expect(result.errors, result.output).toBe(0);
    expect(result.ok, result.output).toBe(true);
  });

  it('every operation has operationId, summary, description, declared tags, security and enveloped errors', () => {
    const doc = docs[name];
    const ops = operationsOf(doc);
    expect(ops.length).toBeGreaterThan(0);
    const declaredTags = new Set((doc.tags ?? []).map((t: Doc) => t.name));
    const ids = new Set<string>();
    const problems: string[] = [];
    for (const { where, op } of ops) {
      if (!op.operationId) problems.push(`${where}: no operationId`);
      else if (ids.has(op.operationId)) problems.push(`${where}: duplicate operationId ${op.operationId}`);
      ids.add(op.operationId);
      if (!op.summary?.trim()) problems.push(`${where}: no summary`);
      const body = op.requestBody?.content?.['application/json'];
      if (body && body.example === undefined && body.examples === undefined) problems.push(`${where}: no request body example`);
      for (const [status, response] of Object.entries<Doc>(op.responses ?? {})) {
        const media = response?.content?.['application/json'];
        if (media && media.example === undefined && media.examples === undefined) problems.push(`${where}: no example for ${status}`);
      }
      // The scope line is appended automatically: a description must say more than that.
      const description = String(op.description ?? '')
        .replace(/\n*Scopes: .*$/s, '')
        .trim();
      if (!description) problems.push(`${where}: no description of its rules`);
      if (!op.tags?.length) problems.push(`${where}: no tags`);
      for (const t of op.tags ?? []) if (!declaredTags.has(t)) problems.push(`${where}: tag ${t} not declared`);
      if (!op.security?.length) problems.push(`${where}: no security`);
      const errors = Object.entries<Doc>(op.responses ?? {}).filter(([status]) => Number(status) >= 400);
      if (!errors.some(([status]) => status.startsWith('4'))) problems.push(`${where}: no 4xx response`);
      for (const [status, response] of errors) {
        const media = response.content?.['application/json'];
        const schema = resolve(doc, media?.schema);
        if (!schema?.properties?.error?.properties?.code) problems.push(`${where} ${status}: not the error envelope`);
        if (!response.description?.trim()) problems.push(`${where} ${status}: no description`);
        if (media && media.example === undefined && media.examples === undefined) problems.push(`${where} ${status}: no example`);
      }
      if (name === 'v1') {
        for (const status of ['401', '429', '500']) if (!op.responses?.[status]) problems.push(`${where}: ${status} not documented`);
      }
      // Headers of every response (spec 4): request id, and on /v1 the rate-limit headers; Retry-After on 429.
      const expected = name === 'v1' ? ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] : ['X-Request-Id'];
      for (const [status, response] of Object.entries<Doc>(op.responses ?? {})) {
        for (const h of [...expected, ...(status === '429' ? ['Retry-After'] : [])]) {
          if (!response.headers?.[h]) problems.push(`${where} ${status}: header ${h} not documented`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('v1 specifics', () => {
  it('states the scopes of each operation and documents Idempotency-Key where it is honoured', async () => {
    for (const { where, op } of operationsOf(docs.v1)) expect(op.description, where).toMatch(/Scopes: (`[a-z_]+:[a-z]+`|none \(any valid key\))/);
    const withTestRoutes = await startTestServer({ appOptions: { extraRoutes: (await import('../http/mechanisms-routes.js')).mechanismRoutes } });
    try {
      const doc = (await withTestRoutes.call('GET', '/v1/openapi.json')).body;
      const create = doc.paths['/test-profiles'].post;
      const header = create.parameters.find((p: Doc) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
      expect(header).toMatchObject({ schema: { type: 'string', maxLength: 255 } });
      expect(create.responses['409']).toBeTruthy();
      expect(create.responses['422']).toBeTruthy();
      expect(doc.paths['/test-profiles'].get.parameters?.some((p: Doc) => p.in === 'header' && p.name === 'Idempotency-Key') ?? false).toBe(false);
    } finally {
      await withTestRoutes.close();
    }
  });

  it('declares only the security scheme it uses', () => {
    expect(Object.keys(docs.v1.components.securitySchemes)).toEqual(['bearerAuth']);
    expect(Object.keys(docs.admin.components.securitySchemes)).toEqual(['adminToken']);
  });
});

describe('the documents, written once per process', () => {
  it('answer /v1/openapi.json, /docs/json and /docs/yaml with the same bytes every time, the docs page’s copies being the /v1 document', async () => {
    const twice = async (path: string) => {
      const [first, second] = [await server.call('GET', path), await server.call('GET', path)];
      expect(first.status, path).toBe(200);
      expect(second.status, path).toBe(200);
      expect(second.text, path).toBe(first.text);
      expect(second.headers.get('content-type'), path).toBe(first.headers.get('content-type'));
      expect(second.headers.get('content-length'), path).toBe(String(Buffer.byteLength(first.text)));
      return first;
    };
    const v1 = await twice('/v1/openapi.json');
    expect(v1.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(v1.text).toBe(JSON.stringify(docs.v1));
    const json = await twice('/docs/json');
    // The docs page's copy puts the server that serves it first ("Try it out" calls it).
    expect(json.body.servers).toEqual([{ url: '/v1', description: 'This server' }, ...docs.v1.servers]);
    expect({ ...json.body, servers: docs.v1.servers }).toEqual(docs.v1);
    // The page's initializer carries that same copy inline (swagger-ui's first render needs no fetch).
    const initializer = await twice('/docs/static/swagger-initializer.js');
    expect(initializer.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(initializer.text).toContain(`spec: ${json.text.replace(/</g, '\\u003c')},`);
    // The public plane counts per IP in fixed, aligned minutes: the yaml and its percent-encoded
    // spelling below are compared within one minute, else the second may land in a fresh budget.
    await withinOneWindow(60, 10_000);
    const yaml = await twice('/docs/yaml');
    expect(yaml.headers.get('content-type')).toBe('application/x-yaml');
    expect(yaml.text).toMatch(/^openapi: 3\.1\.0\n/);
    expect(yaml.text).toContain(`title: ${docs.v1.info.title}`);
    // The kept copy is found by the route the router matched: a percent-encoded spelling, or a
    // query string, gets the same bytes; and the public plane's per-IP limit still counts it.
    const remaining = (r: { headers: Headers }) => Number(r.headers.get('x-ratelimit-remaining'));
    const encoded = await server.call('GET', '/docs/%79aml?from=docs');
    expect(encoded.status).toBe(200);
    expect(encoded.text).toBe(yaml.text);
    expect(remaining(encoded)).toBeLessThan(remaining(yaml));
    const admin = [await server.admin('GET', '/admin/v1/openapi.json'), await server.admin('GET', '/admin/v1/openapi.json')];
    expect(admin[1]!.text).toBe(admin[0]!.text);
    expect(admin[0]!.body).toEqual(docs.admin);
  });
});

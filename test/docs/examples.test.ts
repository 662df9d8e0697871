/**
 * Every example in both OpenAPI documents validates against its own schema:
 * media-type examples (`example`, `examples.*.value`), parameter examples, and the `examples`
 * of every schema node. Validated by Ajv (JSON Schema 2020-12, as OpenAPI 3.1) with formats,
 * the `$ref`s resolved in the document itself. Also: the public text speaks to integrators
 * (no references to sections of an internal document).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

type Doc = Record<string, any>;
let server: TestServer;
const docs: Record<'v1' | 'admin', Doc> = { v1: {}, admin: {} };

beforeAll(async () => {
  server = await startTestServer();
  docs.v1 = (await server.call('GET', '/v1/openapi.json')).body;
  docs.admin = (await server.admin('GET', '/admin/v1/openapi.json')).body;
});
afterAll(() => server?.close());

const pointer = (path: string[]) => path.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** [where, the schema's JSON pointer, the example] for every example in the document. */
function examplesOf(doc: Doc): Array<[string, string, unknown]> {
  const out: Array<[string, string, unknown]> = [];
  const walk = (node: unknown, path: string[]) => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, [...path, String(i)]));
    const o = node as Doc;
    const inSchema = path.includes('schema') || path.includes('schemas');
    if (o.schema && typeof o.schema === 'object') {
      const at = `/${pointer([...path, 'schema'])}`;
      if (o.example !== undefined) out.push([`${at} (example)`, at, o.example]);
      for (const [name, ex] of Object.entries<Doc>(o.examples ?? {})) if (ex && 'value' in ex) out.push([`${at} (examples.${name})`, at, ex.value]);
    }
    if (inSchema && Array.isArray(o.examples) && path.at(-1) !== 'properties') {
      o.examples.forEach((ex: unknown, i: number) => out.push([`/${pointer(path)} (examples[${i}])`, `/${pointer(path)}`, ex]));
    }
    for (const [k, v] of Object.entries(o)) if (k !== 'example' && k !== 'examples') walk(v, [...path, k]);
  };
  walk(doc, []);
  return out;
}

describe.each(['v1', 'admin'] as const)('%s OpenAPI examples', (name) => {
  it('every example validates against its schema', () => {
    const doc = docs[name];
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    formats.default(ajv);
    ajv.addSchema({ ...doc, $id: 'doc' });
    const examples = examplesOf(doc);
    expect(examples.length).toBeGreaterThan(50);
    const problems: string[] = [];
    for (const [where, at, example] of examples) {
      const validate = ajv.compile({ $ref: `doc#${at}` });
      if (!validate(example)) problems.push(`${where}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(example).slice(0, 200)}`);
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it.runIf(name === 'v1')('lists every event type in its webhooks section, with its envelope and the outbox’s schema of its data', async () => {
    const { EVENT_SCOPES } = await import('../../src/events/catalogue.js');
    const { ALL_EVENT_TYPES, EVENT_DATA_SCHEMAS, exampleData } = await import('../../src/event-schemas.js');
    const webhooks = docs.v1.webhooks as Record<string, Doc>;
    expect(Object.keys(webhooks).sort()).toEqual([...Object.keys(EVENT_SCOPES), 'events.skipped', 'webhook.test'].sort());
    expect(Object.keys(webhooks).sort()).toEqual([...ALL_EVENT_TYPES].sort());
    for (const [type, item] of Object.entries(webhooks)) {
      const media = item.post.requestBody.content['application/json'];
      const schema = media.schema;
      expect(schema.properties.type.const).toBe(type);
      expect(Object.keys(schema.properties)).toEqual(['id', 'eventId', 'type', 'createdAt', 'apiVersion', 'livemode', 'facilityId', 'data']);
      // The very schema the outbox validates with, and its example as the body's data.
      expect(schema.properties.data, type).toEqual(JSON.parse(JSON.stringify(EVENT_DATA_SCHEMAS[type as keyof typeof EVENT_DATA_SCHEMAS])));
      expect(media.example.type).toBe(type);
      expect(media.example.data).toEqual(exampleData(type as keyof typeof EVENT_DATA_SCHEMAS));
      if (type in EVENT_SCOPES) expect(item.post.description).toContain(EVENT_SCOPES[type as keyof typeof EVENT_SCOPES]);
    }
  });

  it('shows in each error example a code, a reason and scopes that operation can answer', () => {
    const CODES: Record<string, string[]> = {
      400: ['invalid_request'],
      401: ['unauthenticated', 'api_key_invalid', 'api_key_revoked'],
      403: ['plan_required', 'insufficient_scope', 'forbidden', 'organization_suspended'],
      404: ['not_found'],
      409: ['conflict', 'no_availability', 'idempotency_in_progress'],
      422: ['idempotency_key_reused'],
      429: ['rate_limited'],
      500: ['internal_error'],
      503: ['unavailable'],
    };
    const listed = (text: string, label: string) => {
      const part = /Reasons: (.*?) \(`details\.reason`/.exec(text)?.[1] ?? '';
      const clause = part.split('; ').find((c) => c.startsWith(`\`${label}\``)) ?? '';
      return [...clause.slice(label.length + 2).matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    };
    const problems: string[] = [];
    let checked = 0;
    for (const [path, item] of Object.entries<Doc>(docs[name].paths)) {
      for (const [method, op] of Object.entries<Doc>(item)) {
        const description = String(op.description ?? '');
        const scopes = [...(/\n\nScopes: (.*)\./.exec(description)?.[1] ?? '').matchAll(/`([a-z_:]+)`/g)].map((m) => m[1]);
        const headers = (op.parameters ?? []).filter((p: Doc) => p.in === 'header').map((p: Doc) => String(p.name).toLowerCase());
        for (const [status, response] of Object.entries<Doc>(op.responses ?? {})) {
          const error = response.content?.['application/json']?.example?.error;
          if (!error || Number(status) < 400) continue;
          checked++;
          const where = `${method.toUpperCase()} ${path} ${status}`;
          if (!CODES[status]?.includes(error.code)) problems.push(`${where}: code ${error.code}`);
          const reason = error.details?.reason;
          if (status === '409' && error.code === 'conflict') {
            const ok = listed(description, '409 conflict').includes(reason) || (reason === 'version_mismatch' && headers.includes('if-match'));
            if (!ok) problems.push(`${where}: reason ${reason} is not one of this operation's`);
          }
          if (status === '409' && error.code === 'idempotency_in_progress' && !headers.includes('idempotency-key')) problems.push(`${where}: not idempotent`);
          if (status === '403' && error.code === 'forbidden' && !listed(description, '403 forbidden').includes(reason))
            problems.push(`${where}: reason ${reason}`);
          if (status === '403' && error.code === 'insufficient_scope' && String(error.details.requiredScopes) !== String(scopes))
            problems.push(`${where}: requiredScopes ${error.details.requiredScopes} against ${scopes}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('speaks to integrators: no section references of an internal document in the public text', () => {
    const text = JSON.stringify(docs[name]);
    expect(text.match(/\b(spec|specification|api-spec\.md)\s*(§\s*)?\d+(\.\d+)*/gi) ?? []).toEqual([]);
    expect(text).not.toMatch(/DESIGN\.md|IDEMPOTENCY\.md|src\/|issue \d+/);
  });
});

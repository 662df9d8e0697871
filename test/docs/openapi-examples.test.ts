/**
 * What a generated client and a validating proxy need from the document: absolute
 * server URLs, the response headers that are sent (ETag, Location, Idempotent-Replayed)
 * declared where they are sent, and every example valid against its schema (ajv, JSON Schema
 * 2020-12 with formats) and reading as data of an Italian clinic.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { emit } from '../modules/webhooks/helpers.js';

type Doc = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

let server: TestServer;
let doc: Doc;
beforeAll(async () => {
  server = await startTestServer();
  doc = (await server.call('GET', '/v1/openapi.json')).body;
});
afterAll(() => server?.close());

function* examples(d: Doc): Generator<{ where: string; schema: Doc; example: unknown }> {
  for (const [path, item] of Object.entries<Doc>(d.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const body = op.requestBody?.content?.['application/json'];
      if (body?.example !== undefined) yield { where: `${method} ${path} body`, schema: body.schema, example: body.example };
      for (const [status, response] of Object.entries<Doc>(op.responses ?? {})) {
        const media = response.content?.['application/json'];
        if (media?.example !== undefined) yield { where: `${method} ${path} ${status}`, schema: media.schema, example: media.example };
      }
      for (const p of op.parameters ?? [])
        if (p.example !== undefined) yield { where: `${method} ${path} ${p.in} ${p.name}`, schema: p.schema, example: p.example };
    }
  }
}

/** Every string of an example with the schema that describes it (properties followed, $ref and anyOf not). */
function* strings(schema: Doc | undefined, value: unknown, name = ''): Generator<{ name: string; schema: Doc | undefined; value: string }> {
  if (typeof value === 'string') yield { name, schema, value };
  else if (Array.isArray(value)) for (const v of value) yield* strings(schema?.items, v, name);
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) yield* strings(schema?.properties?.[k], v, k);
}

describe('the /v1 OpenAPI document for generated clients', () => {
  it('names absolute servers, the host a variable', () => {
    expect(doc.servers[0]).toMatchObject({ url: 'https://{host}/v1', variables: { host: { default: 'api.example.com' } } });
    for (const s of doc.servers) expect(s.url).toMatch(/^https?:\/\//);
  });

  it('has every example valid against its schema, and none a placeholder', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const problems: string[] = [];
    let count = 0;
    for (const { where, schema, example } of examples(doc)) {
      count++;
      const validate = ajv.compile({ ...schema, components: doc.components });
      if (!validate(example)) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`);
      for (const s of strings(schema, example)) {
        // "testo" only where it is a value the field lists (a message's type).
        if (s.value === 'testo' && !String(s.schema?.description ?? '').includes('`testo`')) problems.push(`${where} ${s.name}: placeholder "testo"`);
        if (/phone$/i.test(s.name) && !/^\+39\d{9,10}$/.test(s.value)) problems.push(`${where} ${s.name}: ${s.value} is not an Italian phone in E.164`);
        if (/(^id|Id)$/.test(s.name) && s.schema?.format === 'uuid' && !/^[0-9a-f-]{36}$/.test(s.value)) problems.push(`${where} ${s.name}: ${s.value}`);
      }
    }
    expect(count).toBeGreaterThan(100);
    expect(problems).toEqual([]);
    // A facility is named like one, not like a person.
    expect(doc.paths['/facilities/{id}'].get.responses['200'].content['application/json'].example.name).toBe('Sede Centro');
  });

  it('declares ETag, Location and Idempotent-Replayed where they are sent, and they are sent there', async () => {
    const headersOf = (path: string, method: string, status: string) => Object.keys(doc.paths[path][method].responses[status].headers ?? {});
    expect(headersOf('/facilities/{id}', 'get', '200')).toContain('ETag');
    expect(headersOf('/webhook-endpoints', 'post', '201')).toEqual(expect.arrayContaining(['ETag', 'Location']));
    expect(headersOf('/webhook-deliveries/{id}/redeliver', 'post', '202')).toContain('Idempotent-Replayed');
    expect(headersOf('/webhook-endpoints/{id}/replay', 'post', '202')).toContain('Idempotent-Replayed');
    // Not where they are not sent: a list has no ETag, a secret is never replayed.
    expect(headersOf('/facilities', 'get', '200')).not.toContain('ETag');
    expect(headersOf('/webhook-endpoints', 'post', '201')).not.toContain('Idempotent-Replayed');
    for (const name of ['ETag', 'Location', 'Idempotent-Replayed']) expect(doc.components.headers[name]?.schema).toBeTruthy();

    const tenant = await server.factories.tenant();
    const facility = await server.call('GET', `/v1/facilities/${tenant.facilityIds[0]}`, { token: tenant.token });
    expect(facility.headers.get('etag')).toMatch(/^"\d+"$/);
    const created = await server.call('POST', '/v1/webhook-endpoints', {
      token: tenant.token,
      body: { url: 'https://hooks.example.com/dental', events: ['appointment.created'] },
    });
    expect(created.headers.get('location')).toBe(`/v1/webhook-endpoints/${created.body.id}`);
    expect(created.headers.get('etag')).toBe('"1"');
    await emit(server.ctx, tenant.clinicId, 'appointment.created', tenant.facilityIds[0]);
    const range = { from: new Date(Date.now() - 60_000).toISOString(), to: new Date(Date.now() + 1000).toISOString() };
    const replay = () =>
      server.call('POST', `/v1/webhook-endpoints/${created.body.id}/replay`, {
        token: tenant.token,
        body: range,
        headers: { 'idempotency-key': 'examples-1' },
      });
    expect((await replay()).headers.get('idempotent-replayed')).toBeNull();
    expect((await replay()).headers.get('idempotent-replayed')).toBe('true');
  });
});

/**
 * Hostile details a client library never sends but an attacker does, sent
 * as raw bytes to the real server: repeated single-valued headers, bodies that are not UTF-8
 * or hold a lone surrogate, integers spelled other than in decimal digits.
 */
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validatorCompiler } from '../../src/http/validation.js';
import type { Tenant } from '../helpers/factories.js';
import { sendRaw, type RawAnswer } from '../helpers/raw-http.js';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());

/** One request written byte for byte (headers as given, repeated ones included). */
const rawRequest = (method: string, path: string, headers: Array<[string, string]>, body?: Buffer | string) => sendRaw(server.url, method, path, headers, body);

const bearer = (token = tenant.token): [string, string] => ['Authorization', `Bearer ${token}`];
const json: [string, string] = ['Content-Type', 'application/json'];

function expectInvalid(res: RawAnswer, where: string, path: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.code).toBe('invalid_request');
  expect(res.body.error.details.in).toBe(where);
  expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path);
  expect(res.body.error.requestId).toBe(res.headers['x-request-id']);
}

const patientCount = async () =>
  Number(
    (
      await server.ctx.db
        .selectFrom('patients')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('clinic_id', '=', tenant.clinicId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('a single-valued header sent twice', () => {
  it('two Authorization headers are refused, whatever their letter case and values (Node would keep the first)', async () => {
    const other = (await server.factories.tenant()).token;
    const cases: Array<Array<[string, string]>> = [
      [bearer(), bearer()],
      [bearer(), bearer(other)],
      [bearer(), ['authorization', 'Bearer nope']],
      [
        ['AUTHORIZATION', `Bearer ${tenant.token}`],
        ['authorization', `Bearer ${tenant.token}`],
      ],
      [bearer(), ['Accept', '*/*'], ['Authorization', '']],
    ];
    for (const headers of cases) {
      expectInvalid(await rawRequest('GET', '/v1/tasks', headers), 'header', 'Authorization');
    }
    // The back office and unknown routes alike.
    expectInvalid(await rawRequest('GET', '/admin/v1/clinics', [bearer(ADMIN_TOKEN), bearer(ADMIN_TOKEN)]), 'header', 'Authorization');
    expectInvalid(await rawRequest('GET', '/v1/no-such-route', [bearer(), bearer()]), 'header', 'Authorization');
    // One is served.
    expect((await rawRequest('GET', '/v1/tasks', [bearer()])).status).toBe(200);
  });

  it('two Idempotency-Key headers are refused and nothing is created (Node would join them with ", ")', async () => {
    const before = await patientCount();
    const body = JSON.stringify({ firstName: 'Mario', lastName: 'Rossi' });
    for (const keys of [
      ['k-1', 'k-2'],
      ['same', 'same'],
      ['a', ''],
    ]) {
      const res = await rawRequest('POST', '/v1/patients', [bearer(), json, ['Idempotency-Key', keys[0]!], ['idempotency-key', keys[1]!]], body);
      expectInvalid(res, 'header', 'Idempotency-Key');
    }
    expect(await patientCount()).toBe(before);
    const one = await rawRequest('POST', '/v1/patients', [bearer(), json, ['Idempotency-Key', 'k-1, k-2']], body);
    expect(one.status).toBe(201);
  });

  it('two Content-Type headers are refused (which one a proxy read is anyone’s guess), two Content-Length too', async () => {
    const before = await patientCount();
    const res = await rawRequest(
      'POST',
      '/v1/patients',
      [bearer(), json, ['Content-Type', 'text/plain']],
      JSON.stringify({ firstName: 'Mario', lastName: 'Rossi' }),
    );
    expectInvalid(res, 'header', 'Content-Type');
    // Node's parser refuses a repeated Content-Length, even an equal one; app.ts answers with the envelope.
    const lengths = await rawRequest('POST', '/v1/patients', [bearer(), json, ['Content-Length', '2']], '{}');
    expect(lengths.status).toBe(400);
    expect(lengths.body.error.code).toBe('invalid_request');
    expect(await patientCount()).toBe(before);
  });

  it('two X-Request-Id headers get an id of ours; two If-Match lines are one list, never one of our ETags (409)', async () => {
    const twice = await rawRequest('GET', '/v1/tasks', [bearer(), ['X-Request-Id', 'abc'], ['X-Request-Id', 'def']]);
    expect(twice.status).toBe(200);
    expect(twice.headers['x-request-id']).toMatch(/^req_/);

    const created = await server.call('POST', '/v1/webhook-endpoints', {
      token: tenant.token,
      body: { url: 'https://hooks.example.com/x', events: ['task.created'] },
    });
    const etag = created.headers.get('etag')!;
    const patch = (ifMatch: Array<[string, string]>) =>
      rawRequest('PATCH', `/v1/webhook-endpoints/${created.body.id}`, [bearer(), json, ...ifMatch], JSON.stringify({ description: 'x' }));
    const res = await patch([
      ['If-Match', etag],
      ['If-Match', etag],
    ]);
    expect(res.status).toBe(409);
    expect(res.body.error.details.reason).toBe('version_mismatch');
    expect((await patch([['If-Match', etag]])).status).toBe(200);
  });
});

describe('a JSON body that is not valid UTF-8 text', () => {
  const post = (body: Buffer | string) => rawRequest('POST', '/v1/patients', [bearer(), json], body);

  it.each([
    ['a byte that never starts a character', Buffer.from('{"firstName":"Ma\xffrio","lastName":"Rossi"}', 'latin1')],
    ['a truncated two-byte sequence', Buffer.from('{"firstName":"\xc3(","lastName":"Rossi"}', 'latin1')],
    ['an overlong "/"', Buffer.from('{"firstName":"\xc0\xaf","lastName":"Rossi"}', 'latin1')],
    ['an encoded surrogate (CESU-8)', Buffer.from('{"firstName":"\xed\xa0\x80","lastName":"Rossi"}', 'latin1')],
    ['a code point above U+10FFFF', Buffer.from('{"firstName":"\xf4\x90\x80\x80","lastName":"Rossi"}', 'latin1')],
    ['Latin-1 text', Buffer.from('{"firstName":"Nicolò","lastName":"Rossi"}', 'latin1')],
    ['invalid bytes in a key', Buffer.from('{"first\xfeName":"Mario","lastName":"Rossi"}', 'latin1')],
  ])('refuses %s with 400 and stores nothing', async (_label, body) => {
    const before = await patientCount();
    expectInvalid(await post(body), 'body', '');
    expect(await patientCount()).toBe(before);
  });

  it.each([
    ['a lone high surrogate', '{"firstName":"\\ud800","lastName":"Rossi"}', 'firstName'],
    ['a lone low surrogate after text', '{"firstName":"Mario","lastName":"Ros\\uDFFFsi"}', 'lastName'],
    ['two high surrogates', '{"firstName":"\\ud83d\\ud83d","lastName":"Rossi"}', 'firstName'],
    ['a reversed pair', '{"firstName":"\\ude00\\ud83d","lastName":"Rossi"}', 'firstName'],
    ['a nested field', '{"firstName":"Mario","lastName":"Rossi","address":{"city":"Roma\\ud800"}}', 'address.city'],
    ['an array item', '{"firstName":"Mario","lastName":"Rossi","allergies":["ok","\\udbff"]}', 'allergies.1'],
    ['a key', '{"firstName":"Mario","lastName":"Rossi","\\ud800":1}', '\ud800'],
  ])('refuses %s escaped in JSON with 400 naming the field', async (_label, body, path) => {
    const before = await patientCount();
    expectInvalid(await post(body), 'body', path);
    expect(await patientCount()).toBe(before);
  });

  it('accepts a surrogate pair, escaped or as UTF-8 bytes, a BOM, and stores the text unchanged', async () => {
    const escaped = await post('{"firstName":"Mario \\ud83d\\ude00","lastName":"Rossi"}');
    expect(escaped.status, JSON.stringify(escaped.body)).toBe(201);
    expect(escaped.body.firstName).toBe('Mario 😀');
    const bytes = await post(Buffer.from('{"firstName":"Nicolò 😀","lastName":"Rossi"}', 'utf8'));
    expect(bytes.status).toBe(201);
    const read = await server.call('GET', `/v1/patients/${bytes.body.id}`, { token: tenant.token });
    expect(read.body.firstName).toBe('Nicolò 😀');
    const bom = await post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"firstName":"Anna","lastName":"Bianchi"}')]));
    expect(bom.status).toBe(201);
  });
});

describe('an integer query parameter spelled other than in decimal digits', () => {
  const SPELLINGS = [
    '1e2',
    '1E1',
    '+5',
    '0x10',
    '0X1a',
    '0b101',
    '0o7',
    '%205',
    '5%20',
    '%095',
    '5%0A',
    '5.0',
    '5.',
    '.5e1',
    '1_0',
    'Infinity',
    '%EF%BC%95',
    '-',
    '',
    '5,6',
  ];

  it.each(SPELLINGS)('limit=%s is 400 naming limit', async (spelling) => {
    const res = await rawRequest('GET', `/v1/tasks?limit=${spelling}`, [bearer()]);
    expectInvalid(res, 'query', 'limit');
  });

  it('decimal digits are served (leading zeros too); a number out of range is 400 with its own message', async () => {
    for (const limit of ['5', '05', '200']) expect((await rawRequest('GET', `/v1/tasks?limit=${limit}`, [bearer()])).status, limit).toBe(200);
    const over = await rawRequest('GET', '/v1/tasks?limit=201', [bearer()]);
    expectInvalid(over, 'query', 'limit');
    expect(over.body.error.details.issues[0].message).toMatch(/minore o uguale a 200/);
    const negative = await rawRequest('GET', '/v1/tasks?limit=-1', [bearer()]);
    expect(negative.body.error.details.issues[0].message).toMatch(/maggiore o uguale a 1/);
  });

  it('names every wrong field at once, on every list and the back office', async () => {
    const res = await rawRequest('GET', '/v1/payment-plans?limit=1e2&bogus=1', [bearer()]);
    expectInvalid(res, 'query', 'limit');
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['bogus', 'limit']);
    expect(res.body.error.details.issues.find((i: { path: string }) => i.path === 'limit').message).toBe('deve essere un numero intero');
    for (const path of ['/v1/events', '/v1/webhook-deliveries', '/v1/appointments', `/v1/patients/search?q=Rossi&`]) {
      const sep = path.includes('?') ? '' : '?';
      expectInvalid(await rawRequest('GET', `${path}${sep}limit=0x10`, [bearer()]), 'query', 'limit');
    }
    expectInvalid(await rawRequest('GET', `/admin/v1/clinics/${tenant.clinicId}/access-log?limit=%2B5`, [bearer(ADMIN_TOKEN)]), 'query', 'limit');
  });

  it('is one rule of the validator for path, query and header integers, nullable ones included', () => {
    const schema = Type.Object({ n: Type.Integer(), o: Type.Optional(Type.Unsafe({ type: ['integer', 'null'] })), s: Type.Optional(Type.String()) });
    for (const httpPart of ['params', 'querystring', 'headers']) {
      const validate = validatorCompiler({ schema, httpPart, method: 'GET', url: '/' }) as ((data: unknown) => boolean) & {
        errors?: Array<{ instancePath: string }>;
      };
      expect(validate({ n: '12', s: '1e2' }), httpPart).toBe(true);
      expect(validate({ n: '1e2', o: '+1', s: 'x' }), httpPart).toBe(false);
      expect(validate.errors!.map((e) => e.instancePath).sort()).toEqual(['/n', '/o']);
    }
  });
});

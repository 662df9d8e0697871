import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { mechanismRoutes } from './mechanisms-routes.js';

let server: TestServer;
let token: string;

beforeAll(async () => {
  server = await startTestServer({ appOptions: { extraRoutes: mechanismRoutes } });
  token = (await server.factories.tenant()).token;
});
afterAll(() => server.close());

const profiles = async () =>
  (await server.ctx.db.selectFrom('staff_profiles').select('id').where('first_name', 'like', 'x%').execute()).length +
  (await server.ctx.db.selectFrom('staff_profiles').select('id').where('first_name', '=', 'a').execute()).length;

function expectEnvelope(res: { status: number; headers: Headers; body: any }, code: string, status: number) {
  expect(res.status).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.requestId).toBe(res.headers.get('x-request-id'));
  expect(Object.keys(res.body)).toEqual(['error']);
  expect(Object.keys(res.body.error).sort()).toEqual(['code', 'details', 'message', 'requestId']);
}

describe('error envelope', () => {
  it('answers unknown routes with 404 not_found and every common header', async () => {
    const res = await server.call('GET', '/v1/nothing-here', { token });
    expectEnvelope(res, 'not_found', 404);
    for (const h of ['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
      expect(res.headers.get(h)).toBeTruthy();
    }
  });

  it('answers no key with 401 unauthenticated, headers included', async () => {
    const res = await server.call('GET', '/v1/nothing-here');
    expectEnvelope(res, 'unauthenticated', 401);
    expect(res.headers.get('x-ratelimit-limit')).toBeTruthy();
  });

  it('refuses a malformed key, an unknown key and a non-bearer scheme with api_key_invalid', async () => {
    for (const authorization of ['Bearer nope', `Bearer dcm_live_${'a'.repeat(43)}`, `Basic ${token}`, 'Bearer']) {
      const res = await server.call('GET', '/v1/nothing', { headers: { authorization } });
      expectEnvelope(res, 'api_key_invalid', 401);
    }
  });

  it('refuses malformed JSON, wrong content type and an oversized body with 400 invalid_request', async () => {
    const malformed = await server.call('POST', '/v1/test-profiles', { token, rawBody: '{"firstName": ', headers: { 'content-type': 'application/json' } });
    expectEnvelope(malformed, 'invalid_request', 400);
    expect(malformed.body.error.details.in).toBe('body');

    const wrongType = await server.call('POST', '/v1/test-profiles', {
      token,
      rawBody: 'firstName=Mario',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectEnvelope(wrongType, 'invalid_request', 400);
    expect(wrongType.body.error.details.issues[0].path).toBe('Content-Type');

    const textPlain = await server.call('POST', '/v1/test-profiles', { token, rawBody: 'hello', headers: { 'content-type': 'text/plain' } });
    expectEnvelope(textPlain, 'invalid_request', 400);

    const huge = await server.call('POST', '/v1/test-profiles', {
      token,
      rawBody: JSON.stringify({ firstName: 'x'.repeat(2 * 1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    expectEnvelope(huge, 'invalid_request', 400);

    const noBody = await server.call('POST', '/v1/test-profiles', { token, headers: { 'content-type': 'application/json' } });
    expectEnvelope(noBody, 'invalid_request', 400);
    const poisoned = await server.call('POST', '/v1/test-profiles', {
      token,
      rawBody: '{"firstName":"a","__proto__":{"x":1}}',
      headers: { 'content-type': 'application/json' },
    });
    expectEnvelope(poisoned, 'invalid_request', 400);
    const invalidUtf8 = await server.call('POST', '/v1/test-profiles', {
      token,
      rawBody: Buffer.from([0x7b, 0x22, 0x66, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
      headers: { 'content-type': 'application/json' },
    });
    expect(invalidUtf8.status).toBe(400);
    expect(await profiles()).toBe(0);
  });

  it('names every wrong field, with details.in, and refuses type-confused values', async () => {
    const res = await server.call('POST', '/v1/test-profiles', { token, body: { firstName: 12, delayMs: '5', extra: true } });
    expectEnvelope(res, 'invalid_request', 400);
    expect(res.body.error.details.in).toBe('body');
    const paths = res.body.error.details.issues.map((i: { path: string }) => i.path).sort();
    expect(paths).toEqual(['delayMs', 'extra', 'firstName']);
    for (const issue of res.body.error.details.issues) expect(issue.message.length).toBeGreaterThan(3);
    const missing = await server.call('POST', '/v1/test-profiles', { token, body: {} });
    expect(missing.body.error.details.issues).toEqual([{ path: 'firstName', message: 'campo obbligatorio' }]);
    expect(await profiles()).toBe(0);
  });

  it('answers an uncaught exception with 500 internal_error and nothing internal', async () => {
    const boom = await server.call('GET', '/v1/test-boom', { token });
    expectEnvelope(boom, 'internal_error', 500);
    expect(boom.text).not.toContain('secret detail');
    expect(boom.text).not.toContain('at ');
  });

  it('keeps a well-formed caller request id and replaces an unsafe one', async () => {
    const kept = await server.call('GET', '/v1/nothing', { token, headers: { 'x-request-id': 'trace-123' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-123');
    expect(kept.body.error.requestId).toBe('trace-123');
    const replaced = await server.call('GET', '/v1/nothing', { token, headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('serves health, readiness, metrics and the OpenAPI document', async () => {
    expect((await server.call('GET', '/healthz')).status).toBe(200);
    const ready = await server.call('GET', '/readyz');
    expect(ready.status).toBe(200);
    // /metrics is on the admin plane: the token, or nothing.
    expect((await server.call('GET', '/metrics')).status).toBe(401);
    const metrics = await server.admin('GET', '/metrics');
    expect(metrics.text).toContain('dcm_http_requests_total');
    const doc = await server.call('GET', '/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(doc.body.info.version).toBe('1.0.0');
    expect(doc.body.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});

describe('documents', () => {
  it('serves the docs page and the back-office OpenAPI document', async () => {
    const docs = await fetch(`${server.url}/docs/`, { redirect: 'follow' });
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('<html');
    const admin = await server.admin('GET', '/admin/v1/openapi.json');
    expect(admin.status).toBe(200);
    expect(admin.body.servers.map((s: { url: string }) => s.url)).toEqual(['https://{host}/admin/v1', 'http://127.0.0.1:3000/admin/v1']);
    expect(Object.keys(admin.body.paths)).toContain('/clinics/{clinicId}/api-keys');
    const v1 = await server.call('GET', '/v1/openapi.json');
    expect(v1.body.servers.map((s: { url: string }) => s.url)).toEqual(['https://{host}/v1', 'http://127.0.0.1:3000/v1']);
    const op = v1.body.paths['/facilities/{id}'].get;
    expect(op.operationId).toBe('getFacility');
    expect(op.security).toEqual([{ bearerAuth: [] }]);
    for (const status of ['400', '401', '403', '404', '429', '500', '503']) expect(op.responses[status], status).toBeTruthy();
  });
});

describe('metrics', () => {
  it('exports request rate and latency by route, rate-limit refusals and the delivery queue', async () => {
    // Set-up through the typed client (`raw`: the 404 is wanted, not thrown).
    const unknown = await server.api(token).raw.GET('/facilities/{id}', { params: { path: { id: '00000000-0000-0000-0000-000000000000' } } });
    expect(unknown.response.status).toBe(404);
    const text = (await server.admin('GET', '/metrics')).text;
    expect(text).toMatch(/dcm_http_requests_total\{route="\/v1\/facilities\/:id",method="GET",status="404"\} \d+/);
    expect(text).toContain('dcm_http_request_duration_seconds_bucket');
    expect(text).toContain('dcm_rate_limited_total');
    expect(text).toMatch(/dcm_webhook_deliveries\{status="pending"\} 0/);
    expect(text).toMatch(/dcm_webhook_queue_depth 0/);
    expect(text).toMatch(/dcm_webhook_queue_oldest_age_seconds 0/);
  });
});

describe('declared reasons (route config.reasons)', () => {
  it('answers a reason the operation does not declare as a 500 under the tests, so the omission cannot pass', async () => {
    const res = await server.call('GET', '/v1/test-undeclared-reason', { token });
    expectEnvelope(res, 'internal_error', 500);
  });

  it('answers a declared reason as it is, and lists every operation’s reasons in the OpenAPI description', async () => {
    const res = await server.call('POST', '/v1/test-profiles', { token, body: { firstName: 'x-reason', fail: true } });
    expectEnvelope(res, 'conflict', 409);
    expect(res.body.error.details.reason).toBe('asked_to_fail');
    const doc = (await server.call('GET', '/v1/openapi.json')).body;
    expect(doc.paths['/patients'].post.description).toContain('Reasons: `409 conflict` `duplicate_patient`; `403 forbidden` `plan_limit`');
    expect(doc.paths['/appointments/{id}/cancel'].post.description).toContain('`403 forbidden` `outside_calendar`, `cancellation_notice`');
  });
});

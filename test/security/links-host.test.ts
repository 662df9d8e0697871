/**
 * Links and Host: the documents' upload and download links take their origin
 * from the configuration only (PUBLIC_URL, else the address the service listens on), never
 * from the request's Host; two Host headers are refused; a HEAD does not use up a single-use
 * download link; the files plane has a rate limit per client address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOMY_LIMITS, startTestServer, type TestServer } from '../helpers/server.js';
import type { Tenant } from '../helpers/factories.js';
import { sendRaw } from '../helpers/raw-http.js';
import { withinOneWindow } from '../helpers/windows.js';
import { announced, inline, patient, pdf } from '../modules/documents/helpers.js';

let server: TestServer;
let t: Tenant;
let patientId: string;

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
  patientId = await patient(server, t.token, t.facilityIds[0]);
});
afterAll(async () => server?.close());

const json = (body: unknown): [Array<[string, string]>, string] => [[['Content-Type', 'application/json']], JSON.stringify(body)];
const bearer = (): [string, string] => ['Authorization', `Bearer ${t.token}`];

describe('link origins come from the configuration, not from Host', () => {
  it('gives an upload link on the listening address to a request with Host: evil.example', async () => {
    const [headers, body] = json(announced(patientId, pdf(3000)));
    const res = await sendRaw(server.url, 'POST', '/v1/documents', [['Host', 'evil.example'], bearer(), ...headers], body);
    expect(res.status).toBe(201);
    expect(new URL(res.body.upload.url).origin).toBe(server.url);
  });

  it('gives a download link on the listening address too', async () => {
    const created = await server.api(t.token).callWithResponse('createDocument', { body: inline(patientId, pdf(3000)) });
    const res = await sendRaw(server.url, 'GET', `/v1/documents/${created.data.id}/content?delivery=link`, [['Host', 'evil.example:8443'], bearer()]);
    expect(res.status).toBe(200);
    expect(new URL(res.body.url).origin).toBe(server.url);
  });

  it('uses PUBLIC_URL when set, whatever the Host', async () => {
    const base = server.ctx.config.documents;
    const own = await startTestServer({ config: { documents: { ...base, publicUrl: 'https://api.clinic.example/' } } });
    try {
      const tenant = await own.factories.tenant();
      const patient2 = await patient(own, tenant.token, tenant.facilityIds[0]);
      const [headers, body] = json(announced(patient2, pdf(3000)));
      const res = await sendRaw(own.url, 'POST', '/v1/documents', [['Host', 'evil.example'], ['Authorization', `Bearer ${tenant.token}`], ...headers], body);
      expect(res.status).toBe(201);
      expect(res.body.upload.url).toMatch(/^https:\/\/api\.clinic\.example\/files\/upload\//);
    } finally {
      await own.close();
    }
  });

  it('refuses a request with two Host headers with 400, on every plane', async () => {
    const [headers, body] = json(announced(patientId, pdf(3000)));
    const twoHosts: Array<[string, string]> = [
      ['Host', `127.0.0.1:${new URL(server.url).port}`],
      ['Host', 'evil.example'],
    ];
    for (const [method, path, extra, payload] of [
      ['POST', '/v1/documents', [bearer(), ...headers], body],
      ['GET', '/healthz', [], undefined],
      ['PUT', '/files/upload/not-a-real-token', [], 'x'],
    ] as const) {
      const res = await sendRaw(server.url, method, path, [...twoHosts, ...extra], payload);
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details.issues).toEqual([expect.objectContaining({ path: 'Host' })]);
    }
  });
});

describe('download links', () => {
  it('a HEAD answers the headers and leaves the single use to the GET', async () => {
    const bytes = pdf(4000);
    const created = await server.api(t.token).callWithResponse('createDocument', { body: inline(patientId, bytes) });
    const link = await server.call('GET', `/v1/documents/${created.data.id}/content?delivery=link`, { token: t.token });
    const url: string = link.body.url;
    for (let i = 0; i < 2; i++) {
      const head = await fetch(url, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe('4000');
      expect(head.headers.get('content-type')).toBe('application/pdf');
    }
    const get = await fetch(url);
    expect(get.status).toBe(200);
    expect(Buffer.from(await get.arrayBuffer()).equals(bytes)).toBe(true);
    const again = await fetch(url);
    expect(again.status).toBe(403);
    expect((await again.json()).error.details.reason).toBe('link_used');
    expect((await fetch(url, { method: 'HEAD' })).status).toBe(403);
  });
});

describe('the files plane is rate limited per client address', () => {
  it('refuses the 6th request of a minute with 429 and Retry-After when the budget is 5', async () => {
    const own = await startTestServer({ rateLimits: { ...ROOMY_LIMITS, filesPerMinute: 5 } });
    try {
      await withinOneWindow(60, 20_000);
      for (let i = 0; i < 5; i++) {
        const res = await own.call('GET', '/files/download/not-a-real-token');
        expect(res.status).toBe(403);
        expect(res.headers.get('x-ratelimit-limit')).toBe('5');
      }
      const refused = await own.call('PUT', '/files/upload/not-a-real-token', { rawBody: 'x' });
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await own.close();
    }
  });
});

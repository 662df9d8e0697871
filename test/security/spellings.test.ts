/**
 * Every gate is decided by the route the router matched. This walks every route
 * the app registered (its plane table) and sends each one, without the credential its plane
 * needs, every spelling of test/security/spellings.ts: percent-encoding, dot segments,
 * double slashes, letter case, trailing characters, `;` parameters, `%2f`, backslashes,
 * overlong UTF-8, absolute form, Host and rewrite headers. Each must be refused with the
 * error envelope: 401 or 404 (400 only where the URL cannot be decoded or parsed at all),
 * never 2xx, never 5xx.
 */
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { listenAdmin } from '../../src/http/admin-listener.js';
import { registerPlane, requirePlanes, RouteWithoutGateError } from '../../src/http/planes.js';
import type { Tenant } from '../helpers/factories.js';
import { ADMIN_TOKEN, openTestContext, ROOMY_LIMITS, startTestServer, type TestServer } from '../helpers/server.js';
import { testConfig } from '../../src/config.js';
import type { RawAnswer } from '../helpers/raw-http.js';
import { sendLine, spellingsOf } from './spellings.js';

const SOME_ID = '3f0c9a1e-6b2d-4c8e-9f1a-7d5e2b4c6a80';

let server: TestServer;
let tenant: Tenant;
let port: number;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
  port = Number(new URL(server.url).port);
});
afterAll(() => server.close());

/**
 * 401 (the gate) or 404 (no such route); 400 invalid_request only when the URL cannot be
 * decoded (a bad escape, overlong UTF-8) or Node's HTTP parser refuses the request line
 * (a target not starting with `/`, a backslash): no route was matched, so nothing ran.
 */
function expectRefused(answer: RawAnswer, what: string): void {
  expect([400, 401, 404], `${what}: ${answer.status} ${answer.text.slice(0, 200)}`).toContain(answer.status);
  const body = JSON.parse(answer.text) as { error: { code: string; requestId: string; details: { in?: string } | null } };
  expect(answer.headers['x-request-id'], what).toBe(body.error.requestId);
  if (answer.status === 400) {
    expect(body.error.code, what).toBe('invalid_request');
    expect(['path', 'header'], what).toContain(body.error.details?.in);
  }
}

/** Runs `tasks` with at most `width` in flight. */
async function inParallel<T>(items: T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}

describe('every route, every spelling of its request line', () => {
  it('refuses every gated route, spelled any way, without its credential (401/404 and the envelope)', async () => {
    const routes = server.app.plannedRoutes.filter((r) => r.plane !== 'public' && r.method !== 'HEAD');
    expect(routes.filter((r) => r.plane === 'admin').length).toBeGreaterThan(20);
    expect(routes.filter((r) => r.plane === 'v1').length).toBeGreaterThan(20);
    const counts = new Map<string, Map<number, number>>();
    const jobs: Array<{ method: string; target: string; headers?: Record<string, string>; kind: string; token?: string }> = [];
    for (const route of routes) {
      const path = route.url.replace(/:[A-Za-z0-9_]+/g, SOME_ID);
      for (const s of spellingsOf(path, port)) {
        jobs.push({ method: route.method, target: s.target, headers: s.headers, kind: s.kind });
        // A v1 key is no admin token, however the path is spelled.
        if (route.plane === 'admin') jobs.push({ method: route.method, target: s.target, headers: s.headers, kind: s.kind, token: tenant.token });
      }
    }
    await inParallel(jobs, 8, async (job) => {
      const headers = { ...job.headers, ...(job.token ? { authorization: `Bearer ${job.token}` } : {}) };
      const answer = await sendLine(port, job.method, job.target, headers);
      expectRefused(answer, `${job.method} ${job.target} (${job.kind})`);
      const byStatus = counts.get(job.kind) ?? new Map<number, number>();
      byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1);
      counts.set(job.kind, byStatus);
    });
    console.log(`${jobs.length} requests over ${routes.length} routes; answers by spelling class:`);
    for (const [kind, byStatus] of counts) console.log(`  ${kind}: ${[...byStatus].map(([s, n]) => `${s}×${n}`).join(' ')}`);
  });

  it('lets the real credential through the plain spelling (the walk above is not vacuous)', async () => {
    const admin = await sendLine(port, 'GET', '/admin/v1/clinics', { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(admin.status).toBe(200);
    const absolute = await sendLine(port, 'GET', `http://127.0.0.1:${port}/admin/v1/clinics`, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(absolute.status).toBe(200);
    const encoded = await sendLine(port, 'GET', '/%61dmin/v1/clinics', { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(encoded.status).toBe(200);
    const v1 = await sendLine(port, 'GET', '/%76%31/tasks', { authorization: `Bearer ${tenant.token}` });
    expect(v1.status).toBe(200);
    expect(v1.headers['x-ratelimit-limit']).toBeTruthy();
  });

  it('answers a /v1 path that matches no route behind the v1 gate, and any other unknown path 404', async () => {
    expect((await sendLine(port, 'GET', '/v1/no-such-thing')).status).toBe(401);
    const known = await sendLine(port, 'GET', '/v1/no-such-thing', { authorization: `Bearer ${tenant.token}` });
    expect(known.status).toBe(404);
    expect(known.headers['x-ratelimit-remaining']).toBeTruthy();
    expect((await sendLine(port, 'GET', '/nothing/here')).status).toBe(404);
  });
});

describe('a route without a gate cannot exist', () => {
  it('stops the start when a route is registered outside a plane', async () => {
    const app = Fastify();
    requirePlanes(app, { separateAdminListener: false });
    expect(() => app.get('/loose', async () => 'open')).toThrow(RouteWithoutGateError);
    await registerPlane(app, 'public', null, (scope) => void scope.get('/fine', async () => 'ok'));
    await app.ready();
    expect(app.plannedRoutes.map((r) => `${r.method} ${r.url} ${r.plane}`)).toContain('GET /fine public');
    await app.close();
  });

  it('stops the start when a v1 route declares no scopes', async () => {
    const { ctx, drop } = await openTestContext(testConfig({ adminToken: ADMIN_TOKEN }));
    try {
      await expect(buildApp({ ctx, logger: false, extraRoutes: (v1) => void v1.get('/v1/no-scopes', async () => ({})) })).rejects.toThrow(
        /without config.scopes/,
      );
    } finally {
      await drop();
    }
  });
});

describe('the back office', () => {
  it('is not mounted without ADMIN_TOKEN: its routes and /metrics answer 404 to everyone', async () => {
    const bare = await startTestServer({ config: { adminToken: null } });
    try {
      const p = Number(new URL(bare.url).port);
      for (const target of ['/admin/v1/clinics', '/admin/v1/openapi.json', '/metrics', '/%61dmin/v1/clinics']) {
        const answer = await sendLine(p, 'GET', target, { authorization: 'Bearer anything-at-all-0123456789' });
        expect(answer.status, target).toBe(404);
      }
      expect(bare.app.plannedRoutes.some((r) => r.plane === 'admin')).toBe(false);
    } finally {
      await bare.close();
    }
  });

  it('can listen on a port of its own (ADMIN_PORT), where the public port does not reach it', async () => {
    const split = await startTestServer({ config: { adminPort: 0 }, rateLimits: ROOMY_LIMITS });
    const listener = await listenAdmin(split.app, '127.0.0.1', 0);
    try {
      const publicPort = Number(new URL(split.url).port);
      const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
      for (const target of ['/admin/v1/clinics', '/metrics', `http://127.0.0.1:${listener.port}/admin/v1/clinics`]) {
        expect((await sendLine(publicPort, 'GET', target, auth)).status, target).toBe(404);
      }
      expect((await sendLine(listener.port, 'GET', '/admin/v1/clinics', auth)).status).toBe(200);
      expect((await sendLine(listener.port, 'GET', '/metrics', auth)).text).toContain('dcm_http_requests_total');
      expect((await sendLine(listener.port, 'GET', '/admin/v1/clinics')).status).toBe(401);
      // The API stays on the public port only.
      const t = await split.factories.tenant();
      expect((await sendLine(publicPort, 'GET', '/v1/tasks', { authorization: `Bearer ${t.token}` })).status).toBe(200);
      expect((await sendLine(listener.port, 'GET', '/v1/tasks', { authorization: `Bearer ${t.token}` })).status).toBe(404);
    } finally {
      await listener.close();
      await split.close();
    }
  });
});

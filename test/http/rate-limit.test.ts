import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { RateLimiter, RedisCounterStore, SPEC_RATE_LIMITS } from '../../src/http/rate-limit/limiter.js';
import type { App } from '../../src/http/types.js';
import type { Tenant } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { withinOneWindow } from '../helpers/windows.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A burst within one 10-second window (6 s of it left at least). */
const freshWindow = () => withinOneWindow(10, 6_000);

let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer({ rateLimits: { ...SPEC_RATE_LIMITS, authFailuresPerMinute: 5, agentMessagesPer10s: 6 } });
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());

describe('rate limits (spec 8), in memory', () => {
  it('reports the tightest window on every response', async () => {
    await freshWindow();
    const key = await server.factories.key(tenant.clinicId, ['clinic:read']);
    const res = await server.call('GET', `/v1/facilities/${tenant.facilityIds[0]}`, { token: key.token });
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('59');
    const reset = Number(res.headers.get('x-ratelimit-reset'));
    expect(reset % 10).toBe(0);
    expect(reset - Date.now() / 1000).toBeGreaterThan(0);
    expect(reset - Date.now() / 1000).toBeLessThanOrEqual(10);
    const error = await server.call('GET', '/v1/facilities/not-a-uuid', { token: key.token });
    expect(error.status).toBe(400);
    expect(error.headers.get('x-ratelimit-remaining')).toBe('58');
  });

  it('refuses the 61st request of a key in 10 s with 429 and Retry-After, and a 429 consumes nothing', async () => {
    const t = await server.factories.tenant();
    const a = await server.factories.key(t.clinicId, ['clinic:read']);
    const b = await server.factories.key(t.clinicId, ['clinic:read']);
    const path = `/v1/facilities/${t.facilityIds[0]}`;
    await freshWindow();
    for (let i = 0; i < 60; i++) expect((await server.call('GET', path, { token: a.token })).status).toBe(200);
    for (let i = 0; i < 10; i++) {
      const refused = await server.call('GET', path, { token: a.token });
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    }
    // The clinic's 100 per 10 s: key a used 60, the ten 429s used nothing, so key b has 40.
    for (let i = 0; i < 40; i++) {
      const res = await server.call('GET', path, { token: b.token });
      expect(res.status, `request ${i + 1} of key b`).toBe(200);
    }
    const clinicFull = await server.call('GET', path, { token: b.token });
    expect(clinicFull.status).toBe(429);
    expect(clinicFull.headers.get('x-ratelimit-limit')).toBe('100');
  });

  it("counts the MCP messages of a key in their own window, apart from the key's operations", async () => {
    const t = await server.factories.tenant();
    const key = await server.factories.key(t.clinicId, ['clinic:read']);
    const initialize = {
      token: key.token,
      headers: { accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
    };
    await freshWindow();
    for (let i = 0; i < 6; i++) {
      const res = await server.call('POST', '/mcp', initialize);
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('6');
    }
    const refused = await server.call('POST', '/mcp', initialize);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The key's own operations are counted apart: 60 per 10 s, none used by the MCP messages.
    const rest = await server.call('GET', `/v1/facilities/${t.facilityIds[0]}`, { token: key.token });
    expect(rest.status).toBe(200);
    expect(rest.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it('limits failed authentications per client address', async () => {
    await withinOneWindow(60, 20_000);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await server.call('GET', '/v1/facilities/x', { token: `dcm_live_${'z'.repeat(43)}` })).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429]);
  });

  it('never turns the refusal of a known key into a 429, and does not count it as a guess', async () => {
    const own = await startTestServer({ rateLimits: { ...SPEC_RATE_LIMITS, authFailuresPerMinute: 3 } });
    try {
      const revokedClinic = await own.factories.tenant();
      const revoked = await own.factories.revokedKey(revokedClinic.clinicId);
      const expired = (await own.factories.key(revokedClinic.clinicId, ['clinic:read'], null, new Date(Date.now() + 500))).token;
      const offPlan = await own.factories.tenant();
      expect((await own.admin('PATCH', `/admin/v1/clinics/${offPlan.clinicId}`, { planActive: false })).status).toBe(200);
      const suspended = await own.factories.tenant();
      expect((await own.admin('PATCH', `/admin/v1/organizations/${suspended.organizationId}`, { suspended: true })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1100)); // the authenticator's one-second cache

      const known: Array<[string, string]> = [
        [revoked, 'api_key_revoked'],
        [expired, 'api_key_revoked'],
        [offPlan.token, 'plan_required'],
        [suspended.token, 'organization_suspended'],
      ];
      // Many refusals of known keys: none is a 429, and they leave the address's guess budget whole
      // (the refusals and the guesses in one minute's window).
      await withinOneWindow(60, 20_000);
      for (let round = 0; round < 5; round++) {
        for (const [token, code] of known) {
          const res = await own.call('GET', '/v1/facilities', { token });
          expect(res.body.error.code, code).toBe(code);
          expect(res.headers.get('x-ratelimit-limit')).toBeTruthy();
        }
      }
      const guesses: number[] = [];
      for (let i = 0; i < 4; i++) guesses.push((await own.call('GET', '/v1/facilities', { token: `dcm_live_${'q'.repeat(43)}` })).status);
      expect(guesses).toEqual([401, 401, 401, 429]);
      expect((await own.call('GET', '/v1/facilities')).status).toBe(429); // no header at all is a guess too
      // The address is out of guesses; a known key still hears why it is refused.
      for (const [token, code] of known) expect((await own.call('GET', '/v1/facilities', { token })).body.error.code).toBe(code);
    } finally {
      await own.close();
    }
  });
});

describe('rate limits shared through Redis', () => {
  let redis: Redis;
  const apps: App[] = [];
  let urls: string[] = [];

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    for (let i = 0; i < 2; i++) {
      const app = await buildApp({
        ctx: server.ctx,
        limiter: new RateLimiter(new RedisCounterStore(new Redis(REDIS_URL))),
        rateLimits: SPEC_RATE_LIMITS,
        logger: false,
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      apps.push(app);
    }
    urls = apps.map((app) => {
      const address = app.server.address();
      return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    });
  });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
    redis.disconnect();
  });

  it('two app processes enforce one budget: the 61st request is refused whichever answers', async () => {
    const key = await server.factories.key(tenant.clinicId, ['clinic:read']);
    const path = `/v1/facilities/${tenant.facilityIds[0]}`;
    const get = (i: number) => fetch(urls[i % 2]! + path, { headers: { authorization: `Bearer ${key.token}` } });
    await freshWindow();
    for (let i = 0; i < 60; i++) expect((await get(i)).status).toBe(200);
    expect((await get(60)).status).toBe(429);
    expect((await get(61)).status).toBe(429);
    const keys = await redis.keys(`rl:key:${key.id}:*`);
    expect(keys.length).toBe(2);
  });
});

/**
 * The daily budgets of spec 8 (per key and per clinic, UTC days), through the real server with
 * small daily limits (the 10-second windows made roomy), and the UTC day boundary on the limiter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerRules, MemoryCounterStore, RateLimiter } from '../../src/http/rate-limit/limiter.js';
import type { Tenant } from '../helpers/factories.js';
import { ROOMY_LIMITS, startTestServer, type TestServer } from '../helpers/server.js';
import { withinOneWindow } from '../helpers/windows.js';

const DAY_LIMITS = { ...ROOMY_LIMITS, keyPerDay: 5, clinicPerDay: 8 };
let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer({ rateLimits: DAY_LIMITS });
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());

/** Epoch seconds of the next 00:00 UTC. */
const nextUtcMidnight = () => Math.floor(Date.now() / 86_400_000 + 1) * 86_400;

describe('daily rate limits (spec 8)', () => {
  it('refuse a key over its day and the clinic over its own, reporting the day window and when it ends', async () => {
    // Every call below must fall in one UTC day (the window is aligned to midnight).
    await withinOneWindow(86_400, 30_000);
    const a = await server.factories.key(tenant.clinicId, ['clinic:read']);
    const b = await server.factories.key(tenant.clinicId, ['clinic:read']);
    const path = `/v1/facilities/${tenant.facilityIds[0]}`;
    for (let i = 0; i < 5; i++) {
      const res = await server.call('GET', path, { token: a.token });
      expect(res.status).toBe(200);
      // The day window is the tightest: its limit, what is left and its end are reported.
      expect(res.headers.get('x-ratelimit-limit')).toBe('5');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(4 - i));
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBe(nextUtcMidnight());
    }
    const refused = await server.call('GET', path, { token: a.token });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Math.abs(retryAfter - (nextUtcMidnight() - Date.now() / 1000))).toBeLessThan(3);

    // The clinic's day (8) has 3 left for another key; then the clinic is refused too.
    for (let i = 0; i < 3; i++) expect((await server.call('GET', path, { token: b.token })).status).toBe(200);
    const clinicRefused = await server.call('GET', path, { token: b.token });
    expect(clinicRefused.status).toBe(429);
    expect(clinicRefused.headers.get('x-ratelimit-limit')).toBe('8');

    // Another clinic is not touched.
    const other = await server.factories.tenant();
    expect((await server.call('GET', `/v1/facilities/${other.facilityIds[0]}`, { token: other.token })).status).toBe(200);
  });

  it('starts a new day at 00:00 UTC', async () => {
    const limiter = new RateLimiter(new MemoryCounterStore());
    const rules = callerRules(DAY_LIMITS, 'clinic-1', 'key-1');
    const midnight = Date.UTC(2026, 10, 23);
    for (let i = 0; i < 5; i++) expect((await limiter.check(rules, midnight - 60_000 + i * 1000)).allowed).toBe(true);
    const late = await limiter.check(rules, midnight - 1000);
    expect(late.allowed).toBe(false);
    expect(late.retryAfter).toBe(1);
    const next = await limiter.check(rules, midnight);
    expect(next.allowed).toBe(true);
    expect(next.tightest).toMatchObject({ limit: 5, remaining: 4, resetAt: midnight / 1000 + 86_400 });
    await limiter.close();
  });
});

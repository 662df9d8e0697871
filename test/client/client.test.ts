/**
 * The client against the real server: typed reads, typed errors, retries on 429 and 5xx,
 * Idempotency-Key on creations (reused by its own retries), pagination by nextCursor.
 * The mechanism routes of test/http/mechanisms-routes.ts stand in for resources not merged yet.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClientError, createClient, type FetchLike, type RetryInfo } from '../../packages/client/src/index.js';
import { mechanismRoutes } from '../http/mechanisms-routes.js';
import type { Tenant } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer({ appOptions: { extraRoutes: mechanismRoutes } });
  tenant = await server.factories.tenant();
});
afterAll(() => server?.close());

const fast = { baseDelayMs: 1, maxDelayMs: 5 };

function client(apiKey = tenant.token, extra: Partial<Parameters<typeof createClient>[0]> = {}) {
  return createClient({ baseUrl: `${server.url}/v1`, apiKey, retry: fast, ...extra });
}

async function expectApiError(promise: Promise<unknown>): Promise<ApiClientError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiClientError);
    return error as ApiClientError;
  }
  throw new Error('expected an ApiClientError');
}

describe('reads', () => {
  it('reads a facility by path and by operationId, typed', async () => {
    const api = client();
    const facility = await api.get('/facilities/{id}', { params: { path: { id: tenant.facilityIds[0] } } });
    expect(facility.id).toBe(tenant.facilityIds[0]);
    expect(facility.name).toBe('Sede Centro');
    expect(facility.isMainLocation).toBe(true);
    const same = await api.call('getFacility', { params: { path: { id: tenant.facilityIds[1] } } });
    expect(same.name).toBe('Sede Nord');
    // The plain openapi-fetch client is there too, with the response.
    const raw = await api.raw.GET('/facilities/{id}', { params: { path: { id: tenant.facilityIds[0] } } });
    expect(raw.response.status).toBe(200);
    expect(raw.response.headers.get('etag')).toBeTruthy();
    expect(raw.data?.city).toBe('Milano');
  });
});

describe('typed errors', () => {
  it('404 not_found carries status, code, message and the request id', async () => {
    const error = await expectApiError(client().call('getFacility', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } }));
    expect(error.status).toBe(404);
    expect(error.code).toBe('not_found');
    expect(error.message.length).toBeGreaterThan(0);
    expect(error.requestId).toMatch(/^req_/);
    expect(error.method).toBe('GET');
    expect(error.retryable).toBe(false);
  });

  it('400 invalid_request carries details.issues', async () => {
    const error = await expectApiError(client().get('/facilities/{id}', { params: { path: { id: 'not-a-uuid' } } }));
    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_request');
    expect(error.details?.in).toBe('path');
    expect(Array.isArray(error.details?.issues)).toBe(true);
  });

  it('401 for a bad key and a revoked key, not retried', async () => {
    const retries: RetryInfo[] = [];
    const bad = await expectApiError(
      client(`dcm_live_${'x'.repeat(43)}`, { retry: { ...fast, onRetry: (r) => retries.push(r) } }).call('getFacility', {
        params: { path: { id: tenant.facilityIds[0] } },
      }),
    );
    expect(bad.status).toBe(401);
    expect(bad.code).toBe('api_key_invalid');
    const revoked = await expectApiError(
      client(await server.factories.revokedKey(tenant.clinicId)).call('getFacility', { params: { path: { id: tenant.facilityIds[0] } } }),
    );
    expect(revoked.code).toBe('api_key_revoked');
    expect(retries).toEqual([]);
  });

  it('403 insufficient_scope lists the missing scopes', async () => {
    const key = await server.factories.keyWithout(tenant.clinicId, ['clinic:read']);
    const error = await expectApiError(client(key.token).call('getFacility', { params: { path: { id: tenant.facilityIds[0] } } }));
    expect(error.status).toBe(403);
    expect(error.code).toBe('insufficient_scope');
    expect(error.details?.requiredScopes).toEqual(['clinic:read']);
  });

  it('a network failure is network_error with status 0', async () => {
    const api = createClient({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: tenant.token, retry: { maxRetries: 1, ...fast } });
    const error = await expectApiError(api.call('getFacility', { params: { path: { id: tenant.facilityIds[0] } } }));
    expect(error.status).toBe(0);
    expect(error.code).toBe('network_error');
    expect(error.retryable).toBe(true);
  });
});

describe('retries', () => {
  it('retries a 500 on a GET with bounded backoff, then throws internal_error', async () => {
    const api = client();
    await api.loadOperations();
    const retries: RetryInfo[] = [];
    const error = await expectApiError(
      createClient({
        baseUrl: `${server.url}/v1`,
        apiKey: tenant.token,
        operations: api.operations,
        retry: { ...fast, maxRetries: 2, onRetry: (r) => retries.push(r) },
      }).call('testBoom'),
    );
    expect(error.status).toBe(500);
    expect(error.code).toBe('internal_error');
    expect(retries.map((r) => r.status)).toEqual([500, 500]);
    for (const r of retries) expect(r.delayMs).toBeLessThanOrEqual(5);
  });

  it('does not retry a 5xx of a POST the server does not make idempotent', async () => {
    let attempts = 0;
    const transport: FetchLike = async (request) => {
      attempts++;
      await fetch(request);
      return new Response(JSON.stringify({ error: { code: 'internal_error', message: 'x', details: null, requestId: 'req_1' } }), { status: 500 });
    };
    const api = client(tenant.token, { fetch: transport, operations: { someAction: { method: 'post', path: '/test-secrets', idempotent: false } } });
    const error = await expectApiError(api.call('someAction'));
    expect(error.code).toBe('internal_error');
    expect(attempts).toBe(1);
  });
});

describe('rate limits', () => {
  let tight: TestServer;
  let t: Tenant;
  beforeAll(async () => {
    tight = await startTestServer({
      rateLimits: { clinicPer10s: 1000, clinicPerDay: 100_000, keyPer10s: 2, keyPerDay: 100_000, authFailuresPerMinute: 1000 },
    });
    t = await tight.factories.tenant();
  });
  afterAll(() => tight?.close());

  it('waits Retry-After on 429 and then succeeds', async () => {
    const retries: RetryInfo[] = [];
    const api = createClient({ baseUrl: `${tight.url}/v1`, apiKey: t.token, retry: { onRetry: (r) => retries.push(r) } });
    const id = t.facilityIds[0];
    const results = [];
    // The windows are fixed and aligned to multiples of 10 s: calls that straddle a boundary
    // find a new window. Two windows of 2 hold at most 4 quick calls, so the fifth is refused
    // at the latest (with three calls, the third was refused unless they straddled a boundary).
    for (let i = 0; i < 5 && retries.length === 0; i++) results.push(await api.call('getFacility', { params: { path: { id } } }));
    expect(results.map((f) => f.id)).toEqual(results.map(() => id));
    expect(results.length).toBeGreaterThanOrEqual(3);
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries[0]!.status).toBe(429);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(10_000);
  });

  it('returns the 429 as rate_limited when Retry-After is longer than the client will wait', async () => {
    const api = createClient({ baseUrl: `${tight.url}/v1`, apiKey: t.token, retry: { maxRetryAfterMs: -1 } });
    const id = t.facilityIds[0];
    let error: ApiClientError | null = null;
    // Up to 5 calls: two fixed windows of 2 (a boundary crossed) hold at most 4.
    for (let i = 0; i < 5 && !error; i++) {
      try {
        await api.call('getFacility', { params: { path: { id } } });
      } catch (e) {
        error = e as ApiClientError;
      }
    }
    expect(error).toBeInstanceOf(ApiClientError);
    expect(error!.status).toBe(429);
    expect(error!.code).toBe('rate_limited');
    expect(error!.retryAfterSeconds).toBeGreaterThanOrEqual(0);
    expect(error!.retryable).toBe(true);
  });
});

describe('Idempotency-Key on creations', () => {
  it('sends a fresh key on each call of an idempotent POST, and reuses it on its own retries', async () => {
    const seen: { key: string | null; status: number; replayed: string | null }[] = [];
    let failNext = true;
    // The transport lets the server do the work, then pretends the answer was a 503 once.
    const transport: FetchLike = async (request) => {
      const response = await fetch(request);
      seen.push({ key: request.headers.get('idempotency-key'), status: response.status, replayed: response.headers.get('idempotent-replayed') });
      if (failNext) {
        failNext = false;
        return new Response(JSON.stringify({ error: { code: 'unavailable', message: 'x', details: null, requestId: 'req_x' } }), { status: 503 });
      }
      return response;
    };
    const probe = client();
    const live = await probe.loadOperations();
    expect(live.has('testCreateProfile')).toBe(true);
    expect(probe.operations.testCreateProfile!.idempotent).toBe(true);
    const api = client(tenant.token, { fetch: transport, operations: probe.operations });
    const first = await api.call('testCreateProfile', { body: { firstName: 'Idem' } });
    expect(seen).toHaveLength(2);
    expect(seen[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]!.key).toBe(seen[0]!.key);
    expect(seen[1]!.replayed).toBe('true');
    expect((first as { firstName: string }).firstName).toBe('Idem');
    const second = await api.call('testCreateProfile', { body: { firstName: 'Idem' } });
    expect(seen[2]!.key).not.toBe(seen[0]!.key);
    expect((second as { id: string }).id).not.toBe((first as { id: string }).id);
    // One profile per logical call, despite the retry.
    const names: string[] = [];
    for await (const p of api.paginateOperation('testListProfiles', { params: { query: { limit: 200 } } })) names.push((p as { firstName: string }).firstName);
    expect(names.filter((n) => n === 'Idem')).toHaveLength(2);
  });

  it('keeps a key the caller chose', async () => {
    const keys: (string | null)[] = [];
    const transport: FetchLike = async (request) => {
      keys.push(request.headers.get('idempotency-key'));
      return fetch(request);
    };
    const probe = client();
    await probe.loadOperations();
    const api = client(tenant.token, { fetch: transport, operations: probe.operations });
    const a = await api.call('testCreateProfile', { body: { firstName: 'Mine' }, headers: { 'Idempotency-Key': 'my-key-1' } });
    const b = await api.call('testCreateProfile', { body: { firstName: 'Mine' }, headers: { 'Idempotency-Key': 'my-key-1' } });
    expect(keys).toEqual(['my-key-1', 'my-key-1']);
    expect((b as { id: string }).id).toBe((a as { id: string }).id);
  });

  it('sends no key on GET', async () => {
    const keys: (string | null)[] = [];
    const api = client(tenant.token, {
      fetch: async (request) => {
        keys.push(request.headers.get('idempotency-key'));
        return fetch(request);
      },
    });
    await api.call('getFacility', { params: { path: { id: tenant.facilityIds[0] } } });
    expect(keys).toEqual([null]);
  });
});

describe('pagination', () => {
  it('follows nextCursor until the last page', async () => {
    const t = await server.factories.tenant();
    const probe = client(t.token);
    await probe.loadOperations();
    for (let i = 0; i < 6; i++) await probe.call('testCreateProfile', { body: { firstName: `Page ${i}` } });
    const urls: string[] = [];
    const api = client(t.token, {
      operations: probe.operations,
      fetch: async (request) => {
        urls.push(request.url);
        return fetch(request);
      },
    });
    const names: string[] = [];
    for await (const p of api.paginateOperation('testListProfiles', { params: { query: { limit: 2 } } })) names.push((p as { firstName: string }).firstName);
    // The tenant's staff profile and the six made here, each once.
    expect(names).toHaveLength(7);
    expect(new Set(names).size).toBe(7);
    expect(urls).toHaveLength(4);
    expect(urls[0]).not.toContain('cursor=');
    for (const u of urls.slice(1)) expect(u).toContain('cursor=');
    for (const u of urls) expect(u).toContain('limit=2');
    const pages = [];
    for await (const page of api.pages('/test-profiles', { params: { query: { limit: 5 } } })) pages.push(page);
    expect(pages.map((p) => p.data.length)).toEqual([5, 2]);
    expect(pages[1]!.nextCursor).toBeNull();
  });
});

/**
 * Route schemas are compiled on a route's first use, not while the app is built (start-up
 * time; src/http/lazy-schemas.ts). Validation and responses are the same as
 * before, and a schema that does not compile still shows: compileAllSchemas (what the service
 * runs once it listens) throws its error, and its route answers 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileAllSchemas, uncompiledSchemas } from '../../src/app.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('route schemas, compiled on first use', () => {
  it('are not compiled by building the app; a route validates and answers on its first request; compileAllSchemas compiles the rest', async () => {
    const before = uncompiledSchemas(server.app);
    // Every route has at least its error responses' serializers: far more than a hundred.
    expect(before).toBeGreaterThan(100);
    const t = await server.factories.tenant();
    const bad = await server.call('POST', '/v1/patients', { token: t.token, body: { firstName: 7, unknownField: true } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    expect(JSON.stringify(bad.body.error.details)).toContain('firstName');
    expect(JSON.stringify(bad.body.error.details)).toContain('unknownField');
    const list = await server.call('GET', '/v1/patients/search?q=Rossi', { token: t.token });
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body.data)).toBe(true);
    const left = uncompiledSchemas(server.app);
    expect(left).toBeLessThan(before);
    expect(left).toBeGreaterThan(0);
    await compileAllSchemas(server.app);
    expect(uncompiledSchemas(server.app)).toBe(0);
  });

  it('a schema that does not compile: compileAllSchemas throws its error, its route answers 500', async () => {
    const broken = await startTestServer({
      appOptions: {
        extraRoutes: (app) => {
          app.post(
            '/v1/test-broken-schema',
            { schema: { operationId: 'testBrokenSchema', body: { type: 'no-such-type' } as never }, config: { scopes: ['clinic:read'], bodyIssues: false } },
            async () => ({}),
          );
        },
      },
    });
    try {
      const t = await broken.factories.tenant();
      const res = await broken.call('POST', '/v1/test-broken-schema', { token: t.token, body: {} });
      expect(res.status).toBe(500);
      expect(res.body.error.code).toBe('internal_error');
      await expect(compileAllSchemas(broken.app)).rejects.toThrow(/no-such-type/);
    } finally {
      await broken.close();
    }
  });
});

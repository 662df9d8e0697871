import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/modules/auth/scopes.js';
import type { Tenant } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { MatrixCase } from './matrix.js';

const casesDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'cases');
const cases: MatrixCase[] = [];
for (const file of fs
  .readdirSync(casesDir)
  .filter((f) => f.endsWith('.ts'))
  .sort()) {
  const mod = (await import(path.join(casesDir, file))) as { cases: MatrixCase[] };
  cases.push(...mod.cases);
}

let server: TestServer;
let tenant: Tenant;
let other: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
  other = await server.factories.tenant();
});
afterAll(() => server.close());

async function send(c: MatrixCase, token: string | null) {
  const call = await c.prepare(server, tenant);
  return server.call(c.method, call.path, { token, body: call.body, headers: call.headers });
}

describe('security matrix', () => {
  it('has a case for every authenticated /v1 route', async () => {
    const doc = (await server.call('GET', '/v1/openapi.json')).body;
    const operations: string[] = [];
    for (const item of Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>)) {
      for (const op of Object.values(item)) operations.push(op.operationId);
    }
    const covered = new Set(cases.map((c) => c.operationId));
    expect(operations.filter((id) => !covered.has(id))).toEqual([]);
  });

  describe.each(cases.map((c) => [c.operationId, c] as const))('%s', (_name, c) => {
    it('works with a key that has every scope', async () => {
      const res = await send(c, tenant.token);
      if (c.okStatus) expect(res.status, res.text).toBe(c.okStatus);
      else expect(res.status, res.text).toBeGreaterThanOrEqual(200);
      expect(res.status, res.text).toBeLessThan(300);
    });

    it('answers 401 without a key, with a bad key and with a revoked key', async () => {
      expect((await send(c, null)).body.error.code).toBe('unauthenticated');
      expect((await send(c, `dcm_live_${'x'.repeat(43)}`)).body.error.code).toBe('api_key_invalid');
      const revoked = await server.factories.revokedKey(tenant.clinicId);
      const res = await send(c, revoked);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('api_key_revoked');
    });

    it.runIf(c.scopes.length === 0)('needs no scope: a key with none is answered', async () => {
      const none = await server.factories.key(tenant.clinicId, []);
      const res = await send(c, none.token);
      expect(res.status, res.text).toBeLessThan(300);
    });

    it.runIf(c.scopes.length > 0)('answers 403 insufficient_scope naming exactly the missing scopes', async () => {
      for (const scope of c.scopes) {
        const key = await server.factories.keyWithout(tenant.clinicId, [scope]);
        const res = await send(c, key.token);
        expect(res.status, `${scope}: ${res.text}`).toBe(403);
        expect(res.body.error.code).toBe('insufficient_scope');
        expect(res.body.error.details.requiredScopes).toEqual([scope]);
      }
      const none = await server.factories.key(
        tenant.clinicId,
        SCOPES.filter((s) => !c.scopes.includes(s)),
      );
      const res = await send(c, none.token);
      expect(res.status).toBe(403);
      expect([...res.body.error.details.requiredScopes].sort()).toEqual([...c.scopes].sort());
    });

    it.runIf(c.resource)('answers 404 to another clinic and to a key limited to another facility', async () => {
      const fromOtherClinic = await send(c, other.token);
      expect(fromOtherClinic.status, fromOtherClinic.text).toBe(404);
      expect(fromOtherClinic.body.error.code).toBe('not_found');
      const limited = await server.factories.key(tenant.clinicId, [...SCOPES], [tenant.facilityIds[1]]);
      const fromOtherFacility = await send(c, limited.token);
      expect(fromOtherFacility.status, fromOtherFacility.text).toBe(404);
      expect(fromOtherFacility.body.error.code).toBe('not_found');
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
});
afterAll(() => server.close());

describe('names outside the Latin alphabet (found by the fuzzer)', () => {
  const names = ['ኁ𑆖', '𝔐𝔞𝔯𝔦𝔬', '王小明', 'Zoë 🦷'];

  it('search never fails on them', async () => {
    for (const q of names) {
      const res = await server.call('GET', `/v1/patients/search?q=${encodeURIComponent(q)}`, { token: t.token });
      expect(res.status, `${q}: ${res.text}`).toBe(200);
    }
  });

  it('patients with such names are created and found again', async () => {
    for (const [i, name] of names.entries()) {
      const res = await server.call('POST', '/v1/patients', { token: t.token, body: { firstName: name, lastName: `${name}x`, phone: `+39 347 100000${i}` } });
      expect(res.status, `${name}: ${res.text}`).toBe(201);
    }
    const found = await server.call('GET', `/v1/patients/search?q=${encodeURIComponent('王小明')}`, { token: t.token });
    expect(found.status).toBe(200);
    expect(found.body.data.length).toBeGreaterThan(0);
  });
});

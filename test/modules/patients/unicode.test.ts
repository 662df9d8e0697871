import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
});
afterAll(() => server.close());

// Typed calls (the project's client, generated OpenAPI types); `raw` does not throw, so a failure names the query.
const search = (q: string) => server.api(t.token).raw.GET('/patients/search', { params: { query: { q } } });

describe('names outside the Latin alphabet (found by the fuzzer)', () => {
  const names = ['ኁ𑆖', '𝔐𝔞𝔯𝔦𝔬', '王小明', 'Zoë 🦷'];

  it('search never fails on them', async () => {
    for (const q of names) {
      const res = await search(q);
      expect(res.response.status, `${q}: ${JSON.stringify(res.error)}`).toBe(200);
    }
  });

  it('patients with such names are created and found again', async () => {
    for (const [i, name] of names.entries()) {
      const res = await server.api(t.token).raw.POST('/patients', { body: { firstName: name, lastName: `${name}x`, phone: `+39 347 100000${i}` } });
      expect(res.response.status, `${name}: ${JSON.stringify(res.error)}`).toBe(201);
    }
    const found = await search('王小明');
    expect(found.response.status).toBe(200);
    expect(found.data!.data.length).toBeGreaterThan(0);
  });
});

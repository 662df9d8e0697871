/**
 * Where pack URLs point: PUBLIC_URL, whatever Host the request names; without PUBLIC_URL the
 * address the service listens on; behind a proxy without PUBLIC_URL no pack (409
 * public_url_required), since the listener's address is the proxy's upstream.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { PLATFORMS } from '../../src/agents/packs.js';
import { startDemoServer, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function demoWith(documents: Partial<ReturnType<typeof testConfig>['documents']>, trustProxy = false) {
  const base = testConfig();
  const started = await startDemoServer({ config: { trustProxy, documents: { ...base.documents, ...documents } } });
  servers.push(started.server);
  return started;
}

/** Every URL anywhere in a pack entry (endpoint, definition). */
function urls(value: unknown): string[] {
  if (typeof value === 'string') return /^https?:\/\//.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(urls);
  if (value && typeof value === 'object') return Object.values(value).flatMap(urls);
  return [];
}

describe('pack URLs', () => {
  it('start with PUBLIC_URL on every platform, even when the request names another Host', async () => {
    const { server, demo } = await demoWith({ publicUrl: 'https://api.studio-rossi.example' });
    for (const platform of PLATFORMS) {
      for (const host of [undefined, 'evil.example', 'localhost:1']) {
        const res = await server.call('GET', `/v1/agent-tools?platform=${platform}`, {
          token: demo.liveToken,
          headers: host ? { host, 'x-forwarded-host': host } : {},
        });
        expect(res.status, res.text).toBe(200);
        expect(res.body.baseUrl).toBe('https://api.studio-rossi.example');
        const found = res.body.data.flatMap((entry: unknown) => urls(entry));
        expect(found.length).toBeGreaterThanOrEqual(res.body.data.length);
        for (const url of found) expect(url, `${platform} ${host}`).toMatch(/^https:\/\/api\.studio-rossi\.example\/v1\/agent-tools\//);
      }
    }
  });

  it('without PUBLIC_URL: the address the service listens on, not the Host sent', async () => {
    const { server, demo } = await demoWith({ publicUrl: null });
    const res = await server.call('GET', '/v1/agent-tools?platform=vapi', { token: demo.liveToken, headers: { host: 'evil.example' } });
    expect(res.status).toBe(200);
    expect(res.body.baseUrl).toBe(server.url);
    expect(res.body.data[0].endpoint.url).toBe(`${server.url}/v1/agent-tools/vapi`);
  });

  it('behind a proxy without PUBLIC_URL: 409 public_url_required, no pack with a wrong address', async () => {
    const { server, demo } = await demoWith({ publicUrl: null }, true);
    const res = await server.call('GET', '/v1/agent-tools?platform=openai', {
      token: demo.liveToken,
      headers: { 'x-forwarded-host': 'api.example.com', 'x-forwarded-proto': 'https' },
    });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'conflict', details: { reason: 'public_url_required' } });
  });
});

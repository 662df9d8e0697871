/**
 * DNS rebinding (MCP's streamable HTTP transport asks for the check): /mcp refuses a web page of another
 * origin with 403 `origin_not_allowed`, admits clients that send no Origin (agent platforms, SDK
 * clients), and, on a service without PUBLIC_URL, pages on loopback (the MCP inspector's).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config.js';
import { browserOriginAllowed } from '../../src/http/browser-origin.js';
import type { Tenant } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { listTools } from './mcp-client.js';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'origin-test', version: '1.0.0' } },
};
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function initializeFrom(server: TestServer, tenant: Tenant, origin?: string) {
  return server.call('POST', '/mcp', { token: tenant.token, body: INITIALIZE, headers: { ...MCP_HEADERS, ...(origin ? { origin } : {}) } });
}

describe('a service without PUBLIC_URL (the embedded default)', () => {
  let server: TestServer;
  let tenant: Tenant;
  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.factories.tenant();
  }, 60_000);
  afterAll(() => server.close());

  it('refuses a page of another origin, with a Host that names it too, and writes no answer of MCP', async () => {
    const res = await server.call('POST', '/mcp', {
      token: tenant.token,
      body: INITIALIZE,
      headers: { ...MCP_HEADERS, origin: 'http://evil.example', host: 'evil.example' },
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: { code: 'forbidden', details: { reason: 'origin_not_allowed', origin: 'http://evil.example' } } });
    for (const origin of ['null', 'not a url', 'http://127.0.0.1.evil.example:3000', 'http://localhost.evil.example']) {
      expect((await initializeFrom(server, tenant, origin)).status, origin).toBe(403);
    }
  });

  it('admits loopback pages on any port and clients that send no Origin', async () => {
    for (const origin of ['http://localhost:6274', 'http://127.0.0.1:3000', 'http://[::1]:8080', undefined]) {
      const res = await initializeFrom(server, tenant, origin);
      expect(res.status, String(origin)).toBe(200);
      expect(res.body).toMatchObject({ result: { serverInfo: { name: 'dental-clinic-api' } } });
    }
    const tools = await listTools(server.url, tenant.token, { headers: { origin: 'http://localhost:6274' } });
    expect(tools.length).toBeGreaterThan(0);
  });

  it('checks the key before the origin: no key is still 401 with its challenge', async () => {
    const res = await server.call('POST', '/mcp', { body: INITIALIZE, headers: { ...MCP_HEADERS, origin: 'http://evil.example' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });
});

describe('a service with PUBLIC_URL and MCP_ALLOWED_ORIGINS', () => {
  let server: TestServer;
  let tenant: Tenant;
  beforeAll(async () => {
    const base = loadConfig({ LOG_LEVEL: 'silent', SEED_DEMO: 'false' });
    server = await startTestServer({
      config: {
        documents: { ...base.documents, publicUrl: 'https://api.studio.example' },
        mcpAllowedOrigins: ['https://console.studio.example'],
      },
    });
    tenant = await server.factories.tenant();
  }, 60_000);
  afterAll(() => server.close());

  it('admits its own origin and the listed ones, and no longer loopback pages', async () => {
    expect((await initializeFrom(server, tenant, 'https://api.studio.example')).status).toBe(200);
    expect((await initializeFrom(server, tenant, 'https://console.studio.example')).status).toBe(200);
    expect((await initializeFrom(server, tenant, 'http://localhost:6274')).status).toBe(403);
    expect((await initializeFrom(server, tenant, 'https://api.studio.example.evil.example')).status).toBe(403);
    expect((await initializeFrom(server, tenant)).status).toBe(200);
  });
});

describe('the rule and its setting', () => {
  it('compares origins, not strings', () => {
    expect(browserOriginAllowed('HTTPS://API.Studio.Example', 'https://api.studio.example/', [])).toBe(true);
    expect(browserOriginAllowed('https://api.studio.example:8443', 'https://api.studio.example', [])).toBe(false);
    expect(browserOriginAllowed('http://api.studio.example', 'https://api.studio.example', [])).toBe(false);
  });

  it('reads MCP_ALLOWED_ORIGINS as origins and refuses anything else by name', () => {
    expect(loadConfig({ MCP_ALLOWED_ORIGINS: 'https://a.example, http://b.example:8080' }).mcpAllowedOrigins).toEqual([
      'https://a.example',
      'http://b.example:8080',
    ]);
    expect(loadConfig({}).mcpAllowedOrigins).toEqual([]);
    for (const bad of ['a.example', 'https://a.example/path', 'ftp://a.example']) {
      expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: bad }), bad).toThrow(ConfigError);
    }
  });
});

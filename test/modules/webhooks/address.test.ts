import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkEndpointUrl, isAllowedAddress, safeLookup } from '../../../src/modules/webhooks/address.js';
import { createSender } from '../../../src/modules/webhooks/sender.js';
import type { Running } from '../../../src/jobs/scheduler.js';
import { startDeliveryWorker } from '../../../src/modules/webhooks/worker/loop.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { emit, startReceiver, until, type Receiver } from './helpers.js';

const strict = { allowInsecure: false };

/** 127.0.0.1 inside IPv6: mapped, translated, NAT64 (well-known and local-use), 6to4, IPv4-compatible. */
const EMBEDDED_LOOPBACK = ['::ffff:127.0.0.1', '::ffff:0:7f00:1', '64:ff9b::7f00:1', '64:ff9b:1::7f00:1', '2002:7f00:1::', '::127.0.0.1'];

const REFUSED_URLS: Array<[string, string]> = [
  ['http://hooks.example.com/x', 'http'],
  ['https://hooks.example.com:8443/x', 'port'],
  ['https://hooks.example.com:80/x', 'port'],
  ['ftp://hooks.example.com/x', 'scheme'],
  ['https://user:pass@hooks.example.com/x', 'credentials'],
  ['https://user@hooks.example.com/x', 'credentials'],
  ['https://:pass@hooks.example.com/x', 'credentials'],
  ['https://127.0.0.1/x', 'ipv4'],
  ['https://8.8.8.8/x', 'public ipv4 literal'],
  ['https://2130706433/x', 'decimal'],
  ['https://0x7f000001/x', 'hex'],
  ['https://0x7f.0.0.1/x', 'hex octet'],
  ['https://017700000001/x', 'octal'],
  ['https://0177.0.0.1/x', 'octal octet'],
  ['https://127.1/x', 'short'],
  ['https://10.1/x', 'short private'],
  ['https://[::1]/x', 'ipv6 loopback'],
  ['https://[2606:4700::1111]/x', 'public ipv6 literal'],
  ['https://[::ffff:127.0.0.1]/x', 'ipv4-mapped'],
  ['https://[::ffff:7f00:1]/x', 'ipv4-mapped hex'],
  ['https://[64:ff9b::a00:1]/x', 'nat64'],
  ['https://[2002:7f00:1::1]/x', '6to4'],
  ['https://[::ffff:0:7f00:1]/x', 'ipv4-translated'],
  ['https://[fe80::1%25eth0]/x', 'zone'],
  ['https://localhost/x', 'localhost'],
  ['https://LOCALHOST./x', 'localhost trailing dot'],
  ['https://api.localhost/x', '.localhost'],
  ['https://printer.local/x', '.local'],
  ['https://db.corp.internal/x', '.internal'],
  ['https://intranet/x', 'single label'],
  ['https://intranet./x', 'single label dot'],
  ['https://localhost../x', 'localhost two trailing dots'],
  ['https://127.0.0.1../x', 'ipv4 two trailing dots'],
  ['https://localhost%2E%2E/x', 'localhost percent-encoded dots'],
  ['https://localhost%2e./x', 'localhost one encoded, one plain dot'],
  ['https://127.0.0.1%2E%2E/x', 'ipv4 percent-encoded dots'],
  ['https://hooks.example.com../x', 'public name two trailing dots'],
  ['https://hooks..example.com/x', 'empty label inside'],
  ['https://.hooks.example.com/x', 'empty first label'],
  ['not a url', 'garbage'],
];

describe('address safety when a destination is saved (setting off)', () => {
  it.each(REFUSED_URLS)('refuses %s (%s)', (url) => {
    expect(checkEndpointUrl(url, strict)).not.toEqual([]);
  });

  it('accepts a public https host name on port 443', () => {
    for (const url of ['https://hooks.example.com/x', 'https://hooks.example.com:443/x?a=1', 'https://a.b.example.co.uk/']) {
      expect(checkEndpointUrl(url, strict), url).toEqual([]);
    }
  });

  it('with the development setting allows http and loopback only', () => {
    const dev = { allowInsecure: true };
    expect(checkEndpointUrl('http://127.0.0.1:8080/x', dev)).toEqual([]);
    expect(checkEndpointUrl('http://localhost:8080/x', dev)).toEqual([]);
    expect(checkEndpointUrl('http://[::1]:8080/x', dev)).toEqual([]);
    expect(checkEndpointUrl('http://10.0.0.1/x', dev)).not.toEqual([]);
    expect(checkEndpointUrl('http://printer.local/x', dev)).not.toEqual([]);
    expect(checkEndpointUrl('http://u:p@127.0.0.1/x', dev)).not.toEqual([]);
  });
});

describe('address safety when a delivery connects', () => {
  const refused = [
    '0.0.0.0',
    '10.1.2.3',
    '100.64.0.1',
    '100.127.255.254',
    '127.0.0.1',
    '127.255.0.9',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.10',
    '192.88.99.1',
    '192.168.1.1',
    '198.18.0.1',
    '198.19.255.1',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '::127.0.0.1',
    '64:ff9b::10.0.0.1',
    '64:ff9b::7f00:1',
    '64:ff9b:1::8.8.8.8',
    '2002:c0a8:0101::1',
    '2002:7f00:1::',
    '100::1',
    '2001::1',
    '2001:db8::1',
    '3fff::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'fec0::1',
    'ff02::1',
    'fe80::1%eth0',
    // Every IPv6 form that carries an IPv4 address, checked on that address:
    '::ffff:7f00:1',
    '::FFFF:127.0.0.1',
    '::ffff:0:127.0.0.1',
    '::ffff:0:7f00:1',
    '::ffff:0:10.0.0.1',
    '::ffff:0:169.254.169.254', // mapped, translated
    '64:ff9b::127.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:0:0:0:0:192.168.0.1', // NAT64 well-known prefix
    '2002:7f00:1::',
    '2002:a00:1::1',
    '2002:a9fe:a9fe:1234::1', // 6to4
    // ... or refused whole: local-use NAT64 (RFC 8215), IPv4-compatible (deprecated), Teredo.
    '64:ff9b:1::7f00:1',
    '64:ff9b:1:7f00:1::',
    '::8.8.8.8',
    '::808:808',
    '::7f00:1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
  ];
  it.each(refused)('refuses %s', (ip) => {
    expect(isAllowedAddress(ip, strict)).toBe(false);
  });

  it('allows public addresses of both families, including public NAT64 and 6to4 forms', () => {
    for (const ip of [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.216.34',
      '2606:4700:4700::1111',
      '2a00:1450:4001:80b::200e',
      '64:ff9b::808:808',
      '2002:0808:0808::1',
      '::ffff:8.8.8.8',
      '::ffff:0:808:808',
    ]) {
      expect(isAllowedAddress(ip, strict), ip).toBe(true);
    }
    expect(isAllowedAddress('127.0.0.1', { allowInsecure: true })).toBe(true);
    expect(isAllowedAddress('10.0.0.1', { allowInsecure: true })).toBe(false);
  });

  it('refuses at connect time every address that carries a loopback or private IPv4 one (the lookup and IP literals)', async () => {
    const lookup = safeLookup(strict);
    const resolve = (name: string) =>
      new Promise<{ code: string | null; address: unknown }>((done) =>
        lookup(name, { all: true }, (err, address) => done({ code: (err as { code?: string } | null)?.code ?? null, address })),
      );
    // dns.lookup answers an IP literal with itself: these are the addresses a name resolving to them would give.
    for (const ip of EMBEDDED_LOOPBACK) expect(await resolve(ip), ip).toEqual({ code: 'EADDRREFUSED_DCM', address: [] });
    expect(await resolve('::ffff:8.8.8.8')).toEqual({ code: null, address: [{ address: '::ffff:8.8.8.8', family: 6 }] });

    const receiver = await startReceiver();
    const sender = createSender(strict);
    try {
      const port = new URL(receiver.url).port;
      for (const ip of EMBEDDED_LOOPBACK) {
        const result = await sender.send(`http://[${ip}]:${port}/x`, '{}', {});
        expect(result, ip).toMatchObject({ statusCode: null, error: 'address_refused', success: false });
      }
      expect(receiver.received).toHaveLength(0);
    } finally {
      await sender.close();
      await receiver.close();
    }
  });

  it('never connects to a loopback receiver with the setting off, whatever the name resolves to', async () => {
    const receiver = await startReceiver();
    const sender = createSender(strict);
    try {
      const port = new URL(receiver.url).port;
      // `localhost` resolves to loopback: the lookup refuses it before any connection.
      const byName = await sender.send(`http://localhost:${port}/x`, '{}', {});
      expect(byName).toMatchObject({ statusCode: null, error: 'address_refused', success: false });
      const byIp = await sender.send(`http://127.0.0.1:${port}/x`, '{}', {});
      expect(byIp).toMatchObject({ statusCode: null, error: 'address_refused', success: false });
      expect(receiver.received).toHaveLength(0);
    } finally {
      await sender.close();
      await receiver.close();
    }
  });
});

describe('address safety end to end (setting off)', () => {
  let server: TestServer;
  let tenant: Tenant;
  let receiver: Receiver;
  let worker: Running;
  beforeAll(async () => {
    server = await startTestServer({ config: { webhookAllowInsecure: false, webhookRetryScale: 0.001 } });
    tenant = await server.factories.tenant();
    receiver = await startReceiver();
    worker = await startDeliveryWorker(server.ctx);
  });
  afterAll(async () => {
    await worker.stop();
    await receiver.close();
    await server.close();
  });

  it.each(REFUSED_URLS)('POST /webhook-endpoints refuses %s with 400 naming url', async (url) => {
    const res = await server.call('POST', '/v1/webhook-endpoints', { token: tenant.token, body: { url, events: ['task.created'] } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues[0].path).toBe('url');
  });

  it.each(REFUSED_URLS.filter(([, label]) => /dot|label|translated/.test(label)))(
    'PATCH /webhook-endpoints/{id} refuses %s with 400 naming url',
    async (url) => {
      const ok = await server.call('POST', '/v1/webhook-endpoints', {
        token: tenant.token,
        body: { url: 'https://hooks.example.com/patched', events: ['task.created'] },
      });
      expect(ok.status).toBe(201);
      const res = await server.call('PATCH', `/v1/webhook-endpoints/${ok.body.id}`, { token: tenant.token, body: { url } });
      expect(res.status).toBe(400);
      expect(res.body.error.details.issues[0].path).toBe('url');
      const after = await server.call('GET', `/v1/webhook-endpoints/${ok.body.id}`, { token: tenant.token });
      expect(after.body.url).toBe('https://hooks.example.com/patched');
      await server.call('DELETE', `/v1/webhook-endpoints/${ok.body.id}`, { token: tenant.token });
    },
  );

  it('a destination saved with an IPv6 address that carries 127.0.0.1 is never contacted (rows written before a rule change)', async () => {
    const port = new URL(receiver.url).port;
    const ids: string[] = [];
    for (const ip of EMBEDDED_LOOPBACK) {
      const ok = await server.call('POST', '/v1/webhook-endpoints', {
        token: tenant.token,
        body: { url: 'https://hooks.example.com/embedded', events: ['task.completed'] },
      });
      expect(ok.status).toBe(201);
      await server.ctx.db
        .updateTable('webhook_endpoints')
        .set({ url: `http://[${ip}]:${port}/embedded` })
        .where('id', '=', ok.body.id)
        .execute();
      ids.push(ok.body.id);
    }
    await emit(server.ctx, tenant.clinicId, 'task.completed', tenant.facilityIds[0]);
    for (const id of ids) {
      const d = await until(
        () => server.ctx.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', id).executeTakeFirst(),
        (row) => !!row && row.attempt_count >= 1,
      );
      const attempts = await server.ctx.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', d!.id).execute();
      expect(attempts.length).toBeGreaterThan(0);
      expect(attempts.every((a) => a.error === 'address_refused' && a.status_code === null)).toBe(true);
    }
    expect(receiver.received).toHaveLength(0);
    for (const id of ids) await server.call('DELETE', `/v1/webhook-endpoints/${id}`, { token: tenant.token });
  });

  it('a destination whose name resolves to a private address (DNS changed after saving) is never contacted', async () => {
    const ok = await server.call('POST', '/v1/webhook-endpoints', {
      token: tenant.token,
      body: { url: 'https://hooks.example.com/x', events: ['task.created'] },
    });
    expect(ok.status).toBe(201);
    // Simulate the name now resolving to this machine: point the saved row at a loopback name.
    const port = new URL(receiver.url).port;
    await server.ctx.db
      .updateTable('webhook_endpoints')
      .set({ url: `http://localhost:${port}/rebound` })
      .where('id', '=', ok.body.id)
      .execute();
    await emit(server.ctx, tenant.clinicId, 'task.created', tenant.facilityIds[0]);
    const d = await until(
      () => server.ctx.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', ok.body.id).executeTakeFirst(),
      (row) => !!row && row.attempt_count >= 2,
    );
    const attempts = await server.ctx.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', d!.id).execute();
    expect(attempts.every((a) => a.error === 'address_refused' && a.status_code === null)).toBe(true);
    expect(receiver.received).toHaveLength(0);
  });
});

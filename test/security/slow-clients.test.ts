/**
 * Slow and greedy clients, with real trickling sockets: headers or a body sent
 * a byte at a time, with a key, without one (after the 401), on an upload link; idle kept-alive
 * connections; too many connections from one address. Each is closed within its limit while
 * other clients are served, and an abandoned upload frees its link. The limits are made small
 * through the configuration, so the file runs in seconds.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { Tenant } from '../helpers/factories.js';
import { announced, patient, pdf } from '../modules/documents/helpers.js';

const LIMITS = {
  headersTimeoutMs: 400,
  requestTimeoutMs: 800,
  keepAliveTimeoutMs: 400,
  idleTimeoutMs: 10_000,
  maxPerAddress: 40,
  uploadMinBytesPerSecond: 2000,
  uploadRateWindowMs: 400,
};
/** Longest a connection may outlive its limit: Node's check interval, the event loop of a busy machine. */
const SLACK_MS = 4000;

let server: TestServer;
let t: Tenant;
let port: number;

beforeAll(async () => {
  server = await startTestServer({ config: { connections: { ...testConfig().connections, ...LIMITS } } });
  port = Number(new URL(server.url).port);
  t = await server.factories.tenant();
});
afterAll(async () => server?.close());

interface Trickled {
  /** How long the connection stayed open. */
  openMs: number;
  /** What the server wrote before closing. */
  received: string;
}

/**
 * Writes `head` at once, then `rest` one byte every `everyMs`, until the server closes the
 * connection (or 15 s pass: the test then fails on `openMs`).
 */
function trickle(head: string | Buffer, rest: string | Buffer = 'x'.repeat(1000), everyMs = 100): Promise<Trickled> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const tail = Buffer.from(rest);
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ openMs: Date.now() - started, received: Buffer.concat(chunks).toString('latin1') });
    };
    const giveUp = setTimeout(finish, 15_000);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', finish);
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (sent < tail.length && !socket.destroyed) socket.write(tail.subarray(sent, ++sent));
      }, everyMs);
    });
  });
}

const host = () => `Host: 127.0.0.1:${port}\r\n`;

describe('slow clients are closed within their limits', () => {
  it('closes 30 connections trickling their headers, and serves other clients meanwhile', async () => {
    const slow = Array.from({ length: 30 }, () =>
      trickle(`GET /v1/facilities/${t.facilityIds[0]} HTTP/1.1\r\n${host()}Authorization: Bearer ${t.token}\r\nX-Slow: `),
    );
    await new Promise((r) => setTimeout(r, 200));
    const served = await server.call('GET', `/v1/facilities/${t.facilityIds[0]}`, { token: t.token });
    expect(served.status).toBe(200);
    for (const closed of await Promise.all(slow)) {
      expect(closed.openMs).toBeLessThan(LIMITS.headersTimeoutMs + SLACK_MS);
      expect(closed.received).toMatch(/^HTTP\/1\.1 400 /);
      expect(closed.received).toContain('"invalid_request"');
    }
  });

  it('closes a request whose body trickles, with a valid key', async () => {
    const closed = await trickle(
      `POST /v1/patients HTTP/1.1\r\n${host()}Authorization: Bearer ${t.token}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"firstName":"`,
      'a'.repeat(480),
    );
    expect(closed.openMs).toBeLessThan(LIMITS.requestTimeoutMs + SLACK_MS);
    expect(closed.received).toMatch(/^HTTP\/1\.1 400 /);
  });

  it('without a key: answers 401 at once, then closes the connection though the body still trickles', async () => {
    const closed = await trickle(
      `POST /v1/patients HTTP/1.1\r\n${host()}Content-Type: application/json\r\nContent-Length: 500\r\n\r\n{"firstName":"`,
      'a'.repeat(480),
    );
    expect(closed.received).toMatch(/^HTTP\/1\.1 401 /);
    // One answer only: nothing is written after the 401 that was already sent.
    expect(closed.received.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(closed.openMs).toBeLessThan(LIMITS.requestTimeoutMs + SLACK_MS);
  });

  it('closes an idle kept-alive connection after KEEP_ALIVE_TIMEOUT_MS', async () => {
    // The whole request at once, then silence: the answer, then the close.
    const closed = await trickle(`GET /healthz HTTP/1.1\r\n${host()}\r\n`, '');
    expect(closed.received).toMatch(/^HTTP\/1\.1 200 /);
    expect(closed.openMs).toBeGreaterThanOrEqual(LIMITS.keepAliveTimeoutMs - 50);
    // Node keeps the socket 1 s beyond the advertised keep-alive (against races with clients).
    expect(closed.openMs).toBeLessThan(LIMITS.keepAliveTimeoutMs + 1000 + SLACK_MS);
  });

  it('answers 400 to a second request on a kept-alive connection that trickles its headers', async () => {
    const closed = await trickle(`GET /healthz HTTP/1.1\r\n${host()}\r\nGET /healthz HTTP/1.1\r\n${host()}X-Slow: `);
    expect(closed.received).toMatch(/^HTTP\/1\.1 200 /);
    expect(closed.received.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 400']);
    expect(closed.openMs).toBeLessThan(LIMITS.headersTimeoutMs + SLACK_MS);
  });

  it('refuses connections beyond MAX_CONNECTIONS_PER_ADDRESS with 503, and serves the address again once they close', async () => {
    const sockets = await Promise.all(
      Array.from(
        { length: LIMITS.maxPerAddress },
        () =>
          new Promise<net.Socket>((resolve) => {
            const s = net.connect(port, '127.0.0.1', () => resolve(s));
            s.on('error', () => undefined);
          }),
      ),
    );
    await new Promise((r) => setTimeout(r, 50));
    const refused = await trickle(`GET /healthz HTTP/1.1\r\n${host()}\r\n`, '');
    expect(refused.received).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused.received).toContain('"unavailable"');
    expect(refused.openMs).toBeLessThan(3000);
    for (const s of sockets) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect((await server.call('GET', '/healthz')).status).toBe(200);
  });
});

describe('upload links: a body-rate floor instead of a total', () => {
  const uploadLink = async (bytes: Buffer) => {
    const patientId = await patient(server, t.token, t.facilityIds[0]);
    const created = await server.api(t.token).callWithResponse('createDocument', { body: announced(patientId, bytes) });
    expect(created.response.status).toBe(201);
    return new URL(created.data.upload!.url);
  };
  const putHead = (url: URL, length: number) => `PUT ${url.pathname} HTTP/1.1\r\n${host()}Content-Type: application/pdf\r\nContent-Length: ${length}\r\n\r\n`;

  it('cuts off an upload that went silent, and its link can be used again', async () => {
    const bytes = pdf(50_000);
    const url = await uploadLink(bytes);
    // 1000 bytes, then a byte every 100 ms: far below 2000 bytes a second.
    const closed = await trickle(Buffer.concat([Buffer.from(putHead(url, bytes.length)), bytes.subarray(0, 1000)]), bytes.subarray(1000, 1100));
    expect(closed.openMs).toBeLessThan(2 * LIMITS.uploadRateWindowMs + SLACK_MS);
    expect(closed.received).toMatch(/^HTTP\/1\.1 400 /);
    // The link was freed (the release is written as the upload fails: a moment).
    let answer: Response | undefined;
    for (let i = 0; i < 20; i++) {
      answer = await fetch(url, { method: 'PUT', body: bytes as unknown as BodyInit, headers: { 'content-type': 'application/pdf' } });
      if (answer.status !== 403) break;
      await answer.text();
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(answer!.status).toBe(200);
    expect(await answer!.json()).toMatchObject({ status: 'available' });
  });

  it('lets an upload above the floor take longer than REQUEST_TIMEOUT_MS', async () => {
    const bytes = pdf(30_000);
    const url = await uploadLink(bytes);
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    await new Promise((r) => socket.on('connect', r));
    const started = Date.now();
    socket.write(putHead(url, bytes.length));
    // 2000 bytes every 100 ms (20,000 a second): 1.5 s in all, twice REQUEST_TIMEOUT_MS.
    for (let at = 0; at < bytes.length; at += 2000) {
      socket.write(bytes.subarray(at, at + 2000));
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => socket.on('close', r));
    const answer = Buffer.concat(chunks).toString('utf8');
    expect(Date.now() - started).toBeGreaterThan(LIMITS.requestTimeoutMs);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toContain('"status":"available"');
  });
});

/**
 * A dependency lost while the service runs, with the real service as a process and
 * real servers that really stop:
 *   - Redis (REDIS_URL): a private redis-server on a free port, stopped, then frozen (SIGSTOP),
 *     then started again. Meanwhile every /v1 request answers `503 unavailable` with
 *     `Retry-After` within 1 s, /readyz is not ready, and once Redis is back both recover by
 *     themselves. Both engines.
 *   - PostgreSQL, two ways (run with DATABASE_URL): the service reaches 127.0.0.1:5432 through a
 *     TCP proxy of this test, which is cut (every connection closed, new ones refused) while
 *     requests are in flight, then restored; and the service runs on a private cluster
 *     (initdb, as user postgres) that is stopped (`pg_ctl stop -m fast`: sessions terminated
 *     with 57P01) while requests are in flight, then started again. The same answers; the
 *     process neither crashes nor logs unhandled `error` events.
 * The shared Redis and PostgreSQL are never stopped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dedicatedDatabase } from '../helpers/databases.js';
import { PG_BIN, PrivateCluster } from '../helpers/pg-cluster.js';
import { freePort, waitFor } from '../helpers/process.js';
import { call, expectNoUnhandled, expectUnavailable, readyStatus, startWithClinic, stop, type ServiceWithClinic } from '../helpers/service-faults.js';
import { ENGINE } from '../helpers/server.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A redis-server of this test alone, without persistence. */
async function startRedis(port: number): Promise<ChildProcess> {
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  redis.stdout!.on('data', (d) => (out += d));
  await waitFor(() => out.includes('Ready to accept connections') || redis.exitCode !== null, 10_000, 'redis-server');
  if (redis.exitCode !== null) throw new Error(`redis-server exited:\n${out}`);
  return redis;
}

/** A TCP proxy to PostgreSQL that can be cut: every connection closed and new ones refused. */
class CuttableProxy {
  #server: net.Server | null = null;
  readonly #sockets = new Set<net.Socket>();
  constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  async open(): Promise<void> {
    this.#server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on('close', () => this.#sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.#server!.listen(this.port, '127.0.0.1', resolve));
  }

  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    const closed = new Promise((r) => server?.close(r));
    for (const s of this.#sockets) s.destroy();
    await closed;
  }
}

/** The database the service runs on: a temporary data folder, or a database of its own on PostgreSQL. */
async function serviceDatabase(): Promise<{ env: Record<string, string>; url: string | null }> {
  if (ENGINE === 'pglite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcm-outage-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    return { env: { DATA_DIR: dir }, url: null };
  }
  const database = await dedicatedDatabase(process.env.DATABASE_URL!, `dcm_t_${process.env.DCM_TEST_RUN}`, process.env.DCM_TEST_TEMPLATE);
  cleanups.push(() => database.drop());
  return { env: { DATABASE_URL: database.url }, url: database.url };
}

/**
 * PostgreSQL taken away while writes and reads are in flight, then given back: every request in
 * flight is answered (2xx or 503, none 500, none hangs), the next ones are 503 within 1 s, the
 * service is not ready; once it is back, writes succeed again within 15 s and it is ready.
 */
async function breakAndRecover(service: ServiceWithClinic, outage: { what: string; down: () => Promise<void>; up: () => Promise<void> }): Promise<void> {
  const { proc, base, token, facilityId } = service;
  let n = 0;
  const write = () =>
    call(base, 'POST', '/v1/patients', token, {
      firstName: 'Ada',
      lastName: `Guasto ${++n}`,
      phone: `+39 333 100 ${String(1000 + n).slice(-4)}`,
      facilityId,
    });
  const read = () => call(base, 'GET', `/v1/facilities/${facilityId}`, token);
  expect((await write()).status).toBe(201);
  expect((await read()).status).toBe(200);

  const inFlight = Array.from({ length: 12 }, (_, i) => (i % 2 ? read() : write()));
  await new Promise((r) => setTimeout(r, 5));
  await outage.down();
  for (const answer of await Promise.all(inFlight)) {
    if (answer.status >= 300) expectUnavailable(answer, `a request in flight when PostgreSQL was ${outage.what}`);
  }
  for (let i = 0; i < 6; i++) {
    const answer = await (i % 2 ? read() : write());
    expectUnavailable(answer, `request ${i} with PostgreSQL ${outage.what}`);
    expect(answer.ms).toBeLessThan(1000);
  }
  expect(await readyStatus(base)).toBe(503);

  await outage.up();
  const backBy = Date.now() + 15_000;
  while ((await write()).status !== 201) {
    if (Date.now() > backBy) throw new Error(`the service did not recover after PostgreSQL was back (${outage.what}):\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  expect((await read()).status).toBe(200);
  expect(await readyStatus(base)).toBe(200);
  expectNoUnhandled(proc);
}

describe('the service when Redis goes away and comes back', () => {
  it('answers /v1 with 503 unavailable within 1 s and is not ready while Redis is stopped or frozen, then recovers by itself', async () => {
    const redisPort = await freePort();
    let redis = await startRedis(redisPort);
    cleanups.push(() => stop(redis, 'SIGKILL'));
    const { env } = await serviceDatabase();
    const { proc, base, token, facilityId } = await startWithClinic({ ...env, REDIS_URL: `redis://127.0.0.1:${redisPort}` }, cleanups);
    const read = () => call(base, 'GET', `/v1/facilities/${facilityId}`, token);
    expect((await read()).status).toBe(200);

    // Stopped: the connection is gone and reconnecting fails.
    await stop(redis);
    for (let i = 0; i < 10; i++) {
      const answer = await read();
      expectUnavailable(answer, `request ${i} with Redis stopped`);
      expect(answer.ms).toBeLessThan(1000);
      expect(answer.body.error.message).not.toMatch(/redis/i);
    }
    // Public /v1 routes are counted per address too: refused the same way.
    expect((await fetch(`${base}/v1/openapi.json`)).status).toBe(503);
    // Alive all the same: a liveness probe must not restart a process that only waits for Redis.
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(await readyStatus(base)).toBe(503);
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: 'unavailable' });

    // Back: without any restart of the service.
    redis = await startRedis(redisPort);
    const backBy = Date.now() + 10_000;
    while ((await read()).status !== 200) {
      if (Date.now() > backBy) throw new Error('the service did not recover after Redis came back');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await readyStatus(base)).toBe(200);
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: 'ready' });

    // Frozen: the connection stays open but nothing answers.
    redis.kill('SIGSTOP');
    try {
      const frozen = await Promise.all([read(), read(), read()]);
      for (const answer of frozen) {
        expectUnavailable(answer, 'a request with Redis frozen');
        expect(answer.ms).toBeLessThan(1000);
      }
      expect(await readyStatus(base)).toBe(503);
    } finally {
      redis.kill('SIGCONT');
    }
    const thawedBy = Date.now() + 10_000;
    while ((await read()).status !== 200) {
      if (Date.now() > thawedBy) throw new Error('the service did not recover after Redis answered again');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await readyStatus(base)).toBe(200);
    expectNoUnhandled(proc);
    expect(proc.output()).toContain('Redis unreachable');
  }, 120_000);
});

describe.skipIf(ENGINE === 'pglite')('the service when PostgreSQL goes away and comes back', () => {
  it('answers 503 unavailable quickly and is not ready while the connections are cut, then recovers by itself', async () => {
    const { url } = await serviceDatabase();
    const target = new URL(url!);
    const proxy = new CuttableProxy(await freePort(), { host: target.hostname, port: Number(target.port || 5432) });
    await proxy.open();
    cleanups.push(() => proxy.cut());
    const viaProxy = new URL(url!);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const service = await startWithClinic({ DATABASE_URL: viaProxy.toString() }, cleanups);
    await breakAndRecover(service, { what: 'cut', down: () => proxy.cut(), up: () => proxy.open() });
  }, 120_000);

  it.skipIf(!fs.existsSync(path.join(PG_BIN, 'initdb')))(
    'answers 503 unavailable quickly while its server is stopped, then recovers when it is started again',
    async () => {
      const cluster = new PrivateCluster(await freePort());
      cleanups.push(() => cluster.remove());
      cluster.init();
      cluster.start();
      const service = await startWithClinic({ DATABASE_URL: cluster.url }, cleanups);
      // Stopped while requests are in flight: the server terminates every session (57P01).
      await breakAndRecover(service, { what: 'stopped', down: () => cluster.stopAsync(), up: async () => cluster.start() });
    },
    120_000,
  );
});

/**
 * The worker's LISTEN connection (README beside src/modules/webhooks/worker/, invariant 5): when it
 * breaks, the worker listens again and NOTIFY wakes it as before. PostgreSQL only (PGlite's
 * listener lives in the process and cannot break).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Running } from '../../../src/jobs/scheduler.js';
import { startDeliveryWorker } from '../../../src/modules/webhooks/worker/loop.js';
import { ENGINE, startTestServer, type TestServer } from '../../helpers/server.js';
import { emit, startReceiver, until, type Receiver } from './helpers.js';

describe.skipIf(ENGINE !== 'postgres')('the worker’s listening connection (PostgreSQL only)', () => {
  let server: TestServer;
  let receiver: Receiver;
  let worker: Running;
  const errors: unknown[] = [];

  beforeAll(async () => {
    server = await startTestServer({ config: { webhookAllowInsecure: true } });
    receiver = await startReceiver();
    // A poll of one minute: within this test only a NOTIFY can wake the worker.
    worker = await startDeliveryWorker(server.ctx, { pollMs: 60_000, onError: (e) => errors.push(e) });
  });
  afterAll(async () => {
    await worker?.stop();
    await receiver?.close();
    await server?.close();
  });

  const listeners = async () =>
    (
      await sql<{ pid: number }>`
        SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN "dcm_events"'`.execute(server.ctx.db)
    ).rows.map((r) => r.pid);

  it('listens again after its connection is terminated, and a new event is delivered at once', async () => {
    const t = await server.factories.tenant();
    const res = await server.call('POST', '/v1/webhook-endpoints', { token: t.token, body: { url: receiver.url + '/relisten', events: ['lead.created'] } });
    expect(res.status, res.text).toBe(201);

    const emitAndTime = async () => {
      const before = receiver.forPath('/relisten').length;
      const start = Date.now();
      await emit(server.ctx, t.clinicId, 'lead.created');
      await receiver.waitFor(() => receiver.forPath('/relisten').length > before, 5_000);
      return Date.now() - start;
    };
    expect(await emitAndTime()).toBeLessThan(1_000);

    const [pid] = await listeners();
    expect(pid).toBeDefined();
    await sql`SELECT pg_terminate_backend(${pid}::int)`.execute(server.ctx.db);
    // A new listening connection (another backend) within the first waits (100 ms, 250 ms...).
    const again = await until(listeners, (pids) => pids.length === 1 && pids[0] !== pid, 5_000);
    expect(again[0]).not.toBe(pid);
    expect(errors.length).toBeGreaterThanOrEqual(1); // the loss was reported

    // Woken by NOTIFY again: far sooner than the one-minute poll.
    expect(await emitAndTime()).toBeLessThan(1_000);
  }, 30_000);
});

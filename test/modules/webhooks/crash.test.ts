/**
 * Crash test: thousands of pending deliveries, the worker process killed with SIGKILL in the
 * middle of the run, started again: every delivery ends `succeeded` and the receiver saw
 * every idempotency key at least once. Runs the real entry point as a child process
 * (`node dist/src/main.js --role=worker`, what `npm run start:worker` runs) against this file's own PostgreSQL database.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../../src/events/record.js';
import { sampleData } from '../../../src/event-schemas.js';
import { startService } from '../../helpers/process.js';
import { ENGINE, startTestServer, type TestServer } from '../../helpers/server.js';
import { startReceiver, until, type Receiver } from './helpers.js';

const CLINICS = 10;
const PER_CLINIC = 250;
const TOTAL = CLINICS * PER_CLINIC;

/** The worker as `npm run start:worker` runs it. */
function startWorker(databaseUrl: string): ChildProcess {
  return startService({ DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_INSECURE: 'true', SEED_DEMO: 'false', LOG_LEVEL: 'error' }, ['--role=worker']).child;
}

describe.skipIf(ENGINE !== 'postgres')('worker crash (PostgreSQL only: PGlite is one process, a second process cannot open it)', () => {
  let server: TestServer;
  let receiver: Receiver;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await receiver.close();
    await server.close();
  });

  it(`loses nothing when the worker is SIGKILLed mid-run (${TOTAL} deliveries)`, async () => {
    receiver.respond('/crash', async () => {
      await new Promise((r) => setTimeout(r, 5));
      return 200;
    });
    for (let c = 0; c < CLINICS; c++) {
      const t = await server.factories.tenant();
      const res = await server.api(t.token).callWithResponse('createWebhookEndpoint', {
        body: { url: 'https://hooks.example.com/crash', events: ['task.created'] },
      });
      expect(res.response.status).toBe(201);
      // Saved as a public name; point it at the local receiver (the worker runs with WEBHOOK_ALLOW_INSECURE).
      await server.ctx.db
        .updateTable('webhook_endpoints')
        .set({ url: `${receiver.url}/crash` })
        .where('id', '=', res.data.id)
        .execute();
      await server.ctx.db.transaction().execute(async (trx) => {
        for (let i = 0; i < PER_CLINIC; i++) {
          const data = sampleData('task.created', t.facilityIds[0]!);
          await recordEvent(trx, { clinicId: t.clinicId, type: 'task.created', facilityId: t.facilityIds[0]!, data });
        }
      });
    }
    const ids = (await server.ctx.db.selectFrom('webhook_deliveries').select('id').execute()).map((r) => r.id);
    expect(ids).toHaveLength(TOTAL);

    const databaseUrl = server.ctx.config.databaseUrl!;
    const first = startWorker(databaseUrl);
    children.push(first);
    await receiver.waitFor((all) => all.length >= TOTAL / 3, 60_000);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const atKill = receiver.received.length;
    expect(atKill).toBeLessThan(TOTAL);
    const inFlightAtKill = await server.ctx.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'delivering').execute();

    const second = startWorker(databaseUrl);
    children.push(second);
    await until(
      () =>
        server.ctx.db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', '=', 'succeeded')
          .executeTakeFirstOrThrow(),
      (r) => Number(r.n) === TOTAL,
      90_000,
    );
    second.kill('SIGTERM');
    await new Promise((r) => second.once('exit', r));

    const seen = new Set(receiver.received.map((r) => r.headers['x-service-idempotency-key'] as string));
    expect(ids.filter((id) => !seen.has(id))).toEqual([]);
    const statuses = await server.ctx.db.selectFrom('webhook_deliveries').select('status').distinct().execute();
    expect(statuses.map((s) => s.status)).toEqual(['succeeded']);
    // Deliveries claimed by the killed worker were retaken after their lease.
    for (const { id } of inFlightAtKill) expect(seen.has(id)).toBe(true);
    console.log(
      `crash test: ${atKill} received before SIGKILL, ${inFlightAtKill.length} claimed at the kill, ${receiver.received.length} requests in all for ${TOTAL} deliveries`,
    );
  }, 180_000);
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { recordEvent } from '../../../src/events/record.js';
import { sampleData } from '../../../src/event-schemas.js';
import { recordSkipped } from '../../../src/events/skipped.js';
import type { Running } from '../../../src/jobs/scheduler.js';
import { revokeApiKey } from '../../../src/modules/auth/keys-service.js';
import { SCOPES } from '../../../src/modules/auth/scopes.js';
import { flushEventGaps } from '../../../src/modules/webhooks/jobs.js';
import { startDeliveryWorker } from '../../../src/modules/webhooks/worker/loop.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { emit, startReceiver, until, type Receiver, type WebhookEventTypes } from './helpers.js';

let server: TestServer;
let receiver: Receiver;
let worker: Running;

beforeAll(async () => {
  server = await startTestServer({ config: { webhookAllowInsecure: true, webhookRetryScale: 0.001 } });
  receiver = await startReceiver();
  worker = await startDeliveryWorker(server.ctx);
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await server.close();
});

async function endpoint(token: string, path: string, events: WebhookEventTypes) {
  const { data, response } = await server.api(token).callWithResponse('createWebhookEndpoint', { body: { url: receiver.url + path, events } });
  expect(response.status).toBe(201);
  return data;
}
const countFor = (endpointId: string) =>
  server.ctx.db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));

describe('fan-out: who receives an event', () => {
  it('reaches only destinations subscribed to the type whose key sees its scope and facility', async () => {
    const t = await server.factories.tenant();
    const [f1, f2] = t.facilityIds;
    const all = await endpoint(t.token, '/fan/all', ['patient.created', 'task.created']);
    const other = await endpoint(t.token, '/fan/other-type', ['lead.created']);
    const limited = await server.factories.key(t.clinicId, [...SCOPES], [f1]);
    const onF1 = await endpoint(limited.token, '/fan/f1', ['patient.created']);
    const noRead = await server.factories.key(t.clinicId, ['webhooks:write', 'patients:read']);
    const withoutRead = await endpoint(noRead.token, '/fan/no-webhooks-read', ['patient.created']);

    await emit(server.ctx, t.clinicId, 'patient.created', f1);
    await emit(server.ctx, t.clinicId, 'patient.created', f2);
    await emit(server.ctx, t.clinicId, 'patient.created', null);
    expect(await countFor(all.id)).toBe(3);
    expect(await countFor(other.id)).toBe(0);
    expect(await countFor(onF1.id)).toBe(1); // f2 unseen; no facility: only unrestricted keys
    expect(await countFor(withoutRead.id)).toBe(0);
    await receiver.waitFor(() => receiver.forPath('/fan/all').length === 3 && receiver.forPath('/fan/f1').length === 1);
    expect(receiver.forPath('/fan/f1')[0]!.body.facilityId).toBe(f1);
  });

  it('a destination whose key lost the event scope or was revoked or expired receives nothing more', async () => {
    const t = await server.factories.tenant();
    const k1 = await server.factories.key(t.clinicId, [...SCOPES]);
    const k2 = await server.factories.key(t.clinicId, [...SCOPES], null, new Date(Date.now() + 1500));
    const revoked = await endpoint(k1.token, '/fan/revoked', ['task.created']);
    const expiring = await endpoint(k2.token, '/fan/expiring', ['task.created']);
    await emit(server.ctx, t.clinicId, 'task.created', t.facilityIds[0]);
    expect(await countFor(revoked.id)).toBe(1);
    expect(await countFor(expiring.id)).toBe(1);
    await receiver.waitFor(() => receiver.forPath('/fan/revoked').length === 1 && receiver.forPath('/fan/expiring').length === 1);
    await revokeApiKey(server.ctx.db, k1.id);
    await new Promise((r) => setTimeout(r, 1600));
    await emit(server.ctx, t.clinicId, 'task.created', t.facilityIds[0]);
    expect(await countFor(revoked.id)).toBe(1);
    expect(await countFor(expiring.id)).toBe(1);
    // A pending delivery whose key is revoked before it is sent is discarded unsent.
    const k3 = await server.factories.key(t.clinicId, [...SCOPES]);
    const late = await endpoint(k3.token, '/fan/late', ['task.created']);
    await worker.stop();
    try {
      await emit(server.ctx, t.clinicId, 'task.created', t.facilityIds[0]);
      await revokeApiKey(server.ctx.db, k3.id);
    } finally {
      worker = await startDeliveryWorker(server.ctx);
    }
    const rows = await until(
      () => server.ctx.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', late.id).execute(),
      (r) => r[0]?.status === 'discarded',
    );
    expect(rows[0]!.skipped_reason).toBe('key_inactive');
    expect(receiver.forPath('/fan/late')).toHaveLength(0);
  });

  it('a test clinic records events and deliveries but sends nothing', async () => {
    const t = await server.factories.tenant({ mode: 'test' });
    const ep = await endpoint(t.token, '/fan/test-clinic', ['lead.created']);
    const ev = await emit(server.ctx, t.clinicId, 'lead.created');
    const [d] = await server.ctx.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', ep.id).execute();
    expect(d).toMatchObject({ status: 'succeeded', skipped_reason: 'test_mode', attempt_count: 0 });
    const api = server.api(t.token);
    const events = await api.call('listEvents');
    expect(events.data.map((e) => [e.id, e.livemode])).toEqual([[ev.id, false]]);
    const detail = await api.call('getWebhookDelivery', { params: { path: { id: d!.id } } });
    expect(detail).toMatchObject({ status: 'succeeded', skippedReason: 'test_mode', attempts: [] });
    const test = await api.call('testWebhookEndpoint', { params: { path: { id: ep.id } } });
    expect(test).toMatchObject({ skipped: 'test_mode', success: false, statusCode: null, durationMs: null });
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.forPath('/fan/test-clinic')).toHaveLength(0);
  });
});

describe('events.skipped (spec 6.4)', () => {
  it('bulk_import reaches destinations subscribed to data.type, with data.scope', async () => {
    const t = await server.factories.tenant();
    const patients = await endpoint(t.token, '/skip/patients', ['patient.created']);
    const tasks = await endpoint(t.token, '/skip/tasks', ['task.created']);
    await server.ctx.db.transaction().execute((trx) => recordSkipped(trx, t.clinicId, 'patient.created', { reason: 'bulk_import', count: 120 }));
    await receiver.waitFor(() => receiver.forPath('/skip/patients').length === 1);
    expect(receiver.forPath('/skip/patients')[0]!.body).toMatchObject({
      type: 'events.skipped',
      data: { type: 'patient.created', scope: 'patients:read', reason: 'bulk_import', count: 120 },
    });
    expect(await countFor(tasks.id)).toBe(0);
    expect(await countFor(patients.id)).toBe(1);
  });

  it('events.skipped without a facility reaches a key limited to facilities that has the scope', async () => {
    const t = await server.factories.tenant();
    const limited = await server.factories.key(t.clinicId, [...SCOPES], [t.facilityIds[1]]);
    const ep = await endpoint(limited.token, '/skip/limited', ['lead.created']);
    await emit(server.ctx, t.clinicId, 'lead.created', null);
    expect(await countFor(ep.id)).toBe(0);
    await server.ctx.db.transaction().execute((trx) => recordSkipped(trx, t.clinicId, 'lead.created', { reason: 'bulk_import', count: 75 }));
    await receiver.waitFor(() => receiver.forPath('/skip/limited').length === 1);
    expect(receiver.forPath('/skip/limited')[0]!.body.data).toEqual({ type: 'lead.created', scope: 'leads:read', reason: 'bulk_import', count: 75 });
  });

  it('no_active_key: while no key is active events are not created; one events.skipped per type records the gap', async () => {
    const t = await server.factories.tenant();
    const ep = await endpoint(t.token, '/skip/gap', ['task.created', 'lead.created']);
    const keys = await server.ctx.db.selectFrom('api_keys').select('id').where('clinic_id', '=', t.clinicId).execute();
    for (const k of keys) await revokeApiKey(server.ctx.db, k.id);
    const gapStart = await server.ctx.db
      .selectFrom('api_keys')
      .select(sql<Date>`max(revoked_at)`.as('at'))
      .where('clinic_id', '=', t.clinicId)
      .executeTakeFirstOrThrow();
    for (let i = 0; i < 3; i++) {
      const r = await emit(server.ctx, t.clinicId, 'task.created', t.facilityIds[0]);
      expect(r.skipped).toBe('no_active_key');
    }
    await emit(server.ctx, t.clinicId, 'lead.created');
    const stored = await server.ctx.db.selectFrom('events').select('type').where('clinic_id', '=', t.clinicId).execute();
    expect(stored).toEqual([]);
    await new Promise((r) => setTimeout(r, 20));
    const fresh = await server.factories.key(t.clinicId, [...SCOPES]);
    const newKey = await server.ctx.db.selectFrom('api_keys').select('created_at').where('id', '=', fresh.id).executeTakeFirstOrThrow();
    // The old key that created the destination is revoked: give the clinic's new key a destination.
    await endpoint(fresh.token, '/skip/gap2', ['task.created', 'lead.created']);
    await emit(server.ctx, t.clinicId, 'task.created', t.facilityIds[0]);
    const events = (await server.api(fresh.token).call('listEvents')).data;
    const skipped = events.filter((e) => e.type === 'events.skipped');
    expect(skipped.map((e) => e.data.type).sort()).toEqual(['lead.created', 'task.created']);
    for (const e of skipped) {
      expect(e.data.reason).toBe('no_active_key');
      expect(e.data.from).toBe(new Date(gapStart.at).toISOString());
      expect(e.data.to).toBe(new Date(newKey.created_at).toISOString());
    }
    expect(events.filter((e: any) => e.type === 'task.created')).toHaveLength(1);
    expect(await countFor(ep.id)).toBe(0);
    await receiver.waitFor(() => receiver.forPath('/skip/gap2').length === 3);
  });

  it('a creation whose statement records its event first records the gap, then its own event (POST /patients, POST /leads)', async () => {
    const t = await server.factories.tenant();
    await revokeApiKey(server.ctx.db, t.keyId);
    expect((await emit(server.ctx, t.clinicId, 'task.created', t.facilityIds[0])).skipped).toBe('no_active_key');
    const fresh = await server.factories.key(t.clinicId, [...SCOPES]);
    await endpoint(fresh.token, '/skip/in-statement', ['task.created', 'patient.created', 'lead.created']);
    const api = server.api(fresh.token);
    const patient = await api.call('createPatient', { body: { firstName: 'Lucia', lastName: 'De Santis', phone: '+39 347 000 1111' } });
    const lead = await api.call('createLead', { body: { firstName: 'Marco', lastName: 'Dal Monte', email: 'marco.dalmonte@example.com' } });
    const events = (await api.call('listEvents')).data.filter((e) => e.type !== 'apiKey.created');
    expect(events.map((e) => [e.type, e.data.type ?? e.data.id])).toEqual([
      ['events.skipped', 'task.created'],
      ['patient.created', patient.id],
      ['lead.created', lead.id],
    ]);
    await receiver.waitFor(() => receiver.forPath('/skip/in-statement').length === 3);
    // The next creation's event is recorded by its statement alone: no gap is left.
    await api.call('createPatient', { body: { firstName: 'Anna', lastName: 'Dal Monte', email: 'anna.dalmonte@example.com' } });
    expect(await server.ctx.db.selectFrom('event_gaps').selectAll().where('clinic_id', '=', t.clinicId).execute()).toEqual([]);
    await receiver.waitFor(() => receiver.forPath('/skip/in-statement').length === 4);
  });

  it('a lead whose statement would commit with a gap to record first records the gap, then its own event', async () => {
    const t = await server.factories.tenant();
    await revokeApiKey(server.ctx.db, t.keyId);
    expect((await emit(server.ctx, t.clinicId, 'task.created', t.facilityIds[0])).skipped).toBe('no_active_key');
    const api = server.api((await server.factories.key(t.clinicId, [...SCOPES])).token);
    const { data: lead, response } = await api.callWithResponse('createLead', {
      body: { firstName: 'Marco', lastName: 'Dal Monte', phone: '+39 348 000 2222' },
    });
    expect(response.status).toBe(201);
    const events = (await api.call('listEvents')).data.filter((e) => e.type !== 'apiKey.created');
    expect(events.map((e) => [e.type, e.data.type ?? e.data.id])).toEqual([
      ['events.skipped', 'task.created'],
      ['lead.created', lead.id],
    ]);
    expect(await server.ctx.db.selectFrom('leads').select('id').where('clinic_id', '=', t.clinicId).execute()).toEqual([{ id: lead.id }]);
  });

  it('lists the events of one transaction in the order they were recorded, several in one millisecond too', async () => {
    const t = await server.factories.tenant();
    const ids = Array.from({ length: 8 }, () => randomUUID());
    await server.ctx.db.transaction().execute(async (trx) => {
      for (const id of ids)
        await recordEvent(trx, {
          clinicId: t.clinicId,
          type: 'task.created',
          facilityId: t.facilityIds[0]!,
          data: { ...sampleData('task.created', t.facilityIds[0]!), id },
        });
    });
    const events = (await server.api(t.token).call('listEvents', { params: { query: { type: 'task.created' } } })).data;
    expect(events.map((e) => e.data.id)).toEqual(ids);
  });

  it('no_active_key gaps are also flushed by the periodic job once a key is active', async () => {
    const t = await server.factories.tenant();
    await revokeApiKey(server.ctx.db, t.keyId);
    await emit(server.ctx, t.clinicId, 'call.logged', t.facilityIds[0]);
    expect(await flushEventGaps(server.ctx.db)).toBeGreaterThanOrEqual(0);
    expect((await server.ctx.db.selectFrom('event_gaps').selectAll().where('clinic_id', '=', t.clinicId).execute()).length).toBe(1);
    await server.factories.key(t.clinicId, [...SCOPES]);
    await flushEventGaps(server.ctx.db);
    const rows = await server.ctx.db.selectFrom('events').selectAll().where('clinic_id', '=', t.clinicId).execute();
    expect(rows.map((r) => [r.type, r.data.type, r.data.reason])).toEqual([['events.skipped', 'call.logged', 'no_active_key']]);
  });

  it('error: when recording fails the change still commits and events.skipped reason error is recorded', async () => {
    const t = await server.factories.tenant();
    const ep = await endpoint(t.token, '/skip/error', ['task.created']);
    const staffId = crypto.randomUUID();
    const result = await server.ctx.db.transaction().execute(async (trx) => {
      await trx.insertInto('staff_profiles').values({ id: staffId, clinic_id: t.clinicId, first_name: 'Anna', last_name: 'Neri' }).execute();
      // A NUL character cannot be stored in jsonb: the insert of the event fails inside the database
      // (in a free-text field of the task's data, so the data still has its documented shape).
      const data = { ...sampleData('task.created', t.facilityIds[0]!), type: 'bad\u0000text' };
      return recordEvent(trx, { clinicId: t.clinicId, type: 'task.created', facilityId: t.facilityIds[0]!, data });
    });
    expect(result.skipped).toBe('error');
    expect(await server.ctx.db.selectFrom('staff_profiles').select('id').where('id', '=', staffId).executeTakeFirst()).toBeTruthy();
    const events = await server.ctx.db.selectFrom('events').selectAll().where('clinic_id', '=', t.clinicId).execute();
    expect(events.map((e) => [e.type, e.data])).toEqual([['events.skipped', { type: 'task.created', scope: 'tasks:read', reason: 'error' }]]);
    await receiver.waitFor(() => receiver.forPath('/skip/error').length === 1);
    expect(receiver.forPath('/skip/error')[0]!.body.data.reason).toBe('error');
    expect(await countFor(ep.id)).toBe(1);
  });
});

describe('per-clinic concurrency', () => {
  it('never has more than 5 deliveries of one clinic in flight, and serves clinics in turn', async () => {
    const big = await server.factories.tenant();
    const small = await server.factories.tenant();
    let inFlight = 0;
    let maxInFlight = 0;
    receiver.respond('/slow/big', async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 60));
      inFlight--;
      return 200;
    });
    await endpoint(big.token, '/slow/big', ['task.created']);
    await endpoint(small.token, '/slow/small', ['task.created']);
    await server.ctx.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 40; i++) {
        const data = sampleData('task.created', big.facilityIds[0]!);
        await recordEvent(trx, { clinicId: big.clinicId, type: 'task.created', facilityId: big.facilityIds[0]!, data });
      }
    });
    await new Promise((r) => setTimeout(r, 100));
    await emit(server.ctx, small.clinicId, 'task.created', small.facilityIds[0]);
    await receiver.waitFor(() => receiver.forPath('/slow/small').length === 1);
    // The small clinic is served while the big one still has a backlog.
    expect(receiver.forPath('/slow/big').length).toBeLessThan(40);
    await receiver.waitFor(() => receiver.forPath('/slow/big').length === 40, 30_000);
    expect(maxInFlight).toBe(5);
  });
});

describe('several workers', () => {
  it('keep one clinic at 5 deliveries in flight at most, across workers', async () => {
    const t = await server.factories.tenant();
    let open = 0;
    let maxOpen = 0;
    receiver.respond('/many-workers', async () => {
      open++;
      maxOpen = Math.max(maxOpen, open);
      await new Promise((r) => setTimeout(r, 40));
      open--;
      return 200;
    });
    await endpoint(t.token, '/many-workers', ['task.created']);
    // On PostgreSQL the extra workers have their own connection pools, like separate processes.
    const others = [];
    const extraContexts: Array<{ drop: () => Promise<void> }> = [];
    for (let i = 0; i < 2; i++) {
      if (process.env.DATABASE_URL) {
        const { ctx } = await openTestContextOn(server);
        extraContexts.push({ drop: () => ctx.database.close() });
        others.push(await startDeliveryWorker(ctx, { concurrency: 8 }));
      } else {
        others.push(await startDeliveryWorker(server.ctx, { concurrency: 8 }));
      }
    }
    try {
      await server.ctx.db.transaction().execute(async (trx) => {
        for (let i = 0; i < 40; i++) {
          const data = sampleData('task.created', t.facilityIds[0]!);
          await recordEvent(trx, { clinicId: t.clinicId, type: 'task.created', facilityId: t.facilityIds[0]!, data });
        }
      });
      await receiver.waitFor(() => receiver.forPath('/many-workers').length === 40, 30_000);
      expect(maxOpen).toBe(5);
    } finally {
      for (const w of others) await w.stop();
      for (const c of extraContexts) await c.drop();
    }
  });
});

/** Another connection pool on this test file's own database (PostgreSQL only). */
async function openTestContextOn(s: TestServer) {
  const { createContext } = await import('../../../src/bootstrap.js');
  const ctx = await createContext(s.ctx.config, { skipMigrations: true });
  return { ctx };
}

/**
 * POST /v1/webhook-endpoints/{id}/replay: one new delivery per event of a range the
 * destination would receive, delivered for real to a local receiver; idempotent while they
 * wait; bounded; the range checked.
 */
import { sql } from 'kysely';
import { SCOPES } from '../../../src/modules/auth/scopes.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../../helpers/factories.js';
import type { TestServer } from '../../helpers/server.js';
import { emit, startWebhookRig, until, verified, type Receiver, type WebhookRig } from './helpers.js';

let rig: WebhookRig;
let server: TestServer;
let receiver: Receiver;
let tenant: Tenant;

beforeAll(async () => {
  rig = await startWebhookRig();
  ({ server, receiver } = rig);
  tenant = await server.factories.tenant();
});
afterAll(() => rig.close());

const replay = (token: string, id: string, body: unknown, headers: Record<string, string> = {}) =>
  server.call('POST', `/v1/webhook-endpoints/${id}/replay`, { token, body, headers });

async function deliveriesOf(endpointId: string) {
  return server.ctx.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).orderBy('created_at').execute();
}

describe('replaying a range of events to a destination', () => {
  it('queues one new delivery per event the destination receives, delivered and signed; again only once the first ones are done', async () => {
    const ep = await rig.endpoint(tenant.token, '/replay', ['appointment.created']);
    const from = new Date(Date.now() - 1000).toISOString();
    const events = [];
    for (let i = 0; i < 3; i++) events.push(await emit(server.ctx, tenant.clinicId, 'appointment.created', tenant.facilityIds[i % 2]));
    await emit(server.ctx, tenant.clinicId, 'task.created', tenant.facilityIds[0]); // not subscribed: never replayed
    await until(
      () => deliveriesOf(ep.id),
      (ds) => ds.length === 3 && ds.every((d) => d.status === 'succeeded'),
    );
    const to = new Date(Date.now() + 1000).toISOString();

    // The receiver holds the replayed deliveries: they stay in flight until released.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    receiver.respond('/replay', async () => {
      await held;
      return 200;
    });
    const first = await replay(tenant.token, ep.id, { from, to });
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ endpointId: ep.id, from, to, queued: 3, alreadyPending: 0 });
    // The same range while they wait: nothing more.
    const again = await replay(tenant.token, ep.id, { from, to });
    expect(again.body).toMatchObject({ queued: 0, alreadyPending: 3 });
    // The same Idempotency-Key answers the first answer.
    const keyed = await replay(tenant.token, ep.id, { from, to }, { 'idempotency-key': 'replay-1' });
    const keyedAgain = await replay(tenant.token, ep.id, { from, to }, { 'idempotency-key': 'replay-1' });
    expect(keyedAgain.body).toEqual(keyed.body);
    expect(keyedAgain.headers.get('idempotent-replayed')).toBe('true');

    release();
    await until(
      () => deliveriesOf(ep.id),
      (ds) => ds.length === 6 && ds.every((d) => d.status === 'succeeded'),
    );
    const received = receiver.forPath('/replay');
    expect(received).toHaveLength(6);
    const replayed = received.slice(3);
    expect(replayed.map((r) => r.body.eventId).sort()).toEqual(events.map((e) => e.id).sort());
    for (const r of replayed) {
      expect(verified(r.raw, r.headers, [ep.secret]).ok).toBe(true);
      expect(r.headers['x-service-idempotency-key']).toBe(r.body.id);
      expect(received.slice(0, 3).map((o) => o.body.id)).not.toContain(r.body.id);
      // The same envelope as the first delivery of that event, but for its id.
      const original = received.slice(0, 3).find((o) => o.body.eventId === r.body.eventId)!;
      expect({ ...r.body, id: null }).toEqual({ ...original.body, id: null });
    }
    // Once finished, the same range sends them again.
    expect((await replay(tenant.token, ep.id, { from, to })).body).toMatchObject({ queued: 3, alreadyPending: 0 });
  });

  it('replays only what the creating key sees: its facilities', async () => {
    const t = await server.factories.tenant();
    const limited = await server.factories.key(t.clinicId, SCOPES, [t.facilityIds[0]]);
    const ep = await rig.endpoint(limited.token, '/replay-limited', ['task.created']);
    const from = new Date(Date.now() - 1000).toISOString();
    await emit(server.ctx, t.clinicId, 'task.created', t.facilityIds[0]);
    await emit(server.ctx, t.clinicId, 'task.created', t.facilityIds[1]);
    await emit(server.ctx, t.clinicId, 'task.created', null);
    const res = await replay(limited.token, ep.id, { from, to: new Date(Date.now() + 1000).toISOString() });
    expect(res.body).toMatchObject({ alreadyPending: expect.any(Number) });
    expect(res.body.queued + res.body.alreadyPending).toBe(1);
  });

  it('checks the range: within 30 days, from before to, naming every wrong field', async () => {
    const ep = await rig.endpoint(tenant.token, '/replay-range', ['appointment.created']);
    const old = new Date(Date.now() - 31 * 86_400_000).toISOString();
    const res = await replay(tenant.token, ep.id, { from: new Date().toISOString(), to: old });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['to']);
    const both = await replay(tenant.token, ep.id, { from: old, to: old });
    expect(both.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['from', 'to']);
    expect((await replay(tenant.token, ep.id, { from: old })).status).toBe(400);
    expect((await replay(tenant.token, ep.id, { from: 'ieri', to: old })).status).toBe(400);
  });

  it('refuses more than 10,000 events with 409 replay_too_large and queues nothing; a switched-off destination with endpoint_disabled', async () => {
    const t = await server.factories.tenant();
    const ep = await rig.endpoint(t.token, '/replay-big', ['lead.created']);
    const from = new Date(Date.now() - 60_000);
    // 10,001 stored events of the range, written directly (the outbox would be 10,001 transactions).
    await sql`INSERT INTO events (id, clinic_id, type, facility_id, scope, livemode, data, created_at)
      SELECT gen_random_uuid(), ${t.clinicId}::uuid, 'lead.created', NULL, 'leads:read', true, '{}'::jsonb, ${from}::timestamptz + make_interval(secs => g / 1000.0)
      FROM generate_series(1, 10001) g`.execute(server.ctx.db);
    const to = new Date(from.getTime() + 20_000).toISOString();
    const res = await replay(t.token, ep.id, { from: from.toISOString(), to });
    expect(res.status).toBe(409);
    expect(res.body.error.details).toEqual({ reason: 'replay_too_large', limit: 10_000 });
    expect(await deliveriesOf(ep.id)).toHaveLength(0);

    await server.api(t.token).call('updateWebhookEndpoint', { params: { path: { id: ep.id } }, body: { enabled: false } });
    const off = await replay(t.token, ep.id, { from: from.toISOString(), to: new Date(from.getTime() + 1000).toISOString() });
    expect(off.status).toBe(409);
    expect(off.body.error.details.reason).toBe('endpoint_disabled');
  });

  it('answers 404 for a destination of another clinic', async () => {
    const other = await server.factories.tenant();
    const ep = await rig.endpoint(tenant.token, '/replay-404', ['appointment.created']);
    const res = await replay(other.token, ep.id, { from: new Date(Date.now() - 1000).toISOString(), to: new Date().toISOString() });
    expect(res.status).toBe(404);
  });
});

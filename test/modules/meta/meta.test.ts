/** GET /v1/meta: the key, the clinic, the rate windows and the event catalogue. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../../src/events/catalogue.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { withinOneWindow } from '../../helpers/windows.js';

let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());
describe('GET /v1/meta', () => {
  it('answers any valid key with no scope: the key, the clinic, every rate window, and costs budget', async () => {
    const key = await server.factories.key(tenant.clinicId, []);
    const api = server.api(key.token);
    // The day window is the UTC day: the two calls compared below must not straddle midnight.
    await withinOneWindow(86_400, 10_000);
    const first = await api.callWithResponse('getMeta');
    expect(first.response.status).toBe(200);
    expect(first.data).toMatchObject({
      apiVersion: '1.0.0',
      key: { id: key.id, kind: 'live', scopes: [], facilityIds: null, agent: 'none', expiresAt: null },
      clinic: { id: tenant.clinicId, timezone: 'Europe/Rome', aiEnabled: true, planActive: true },
    });
    expect(Math.abs(Date.parse(first.data.serverTime) - Date.now())).toBeLessThan(5000);
    const windows = first.data.rateLimits.map((w) => `${w.scope}:${w.window}`);
    expect(windows.sort()).toEqual(['clinic:10s', 'clinic:day', 'key:10s', 'key:day']);
    const second = await api.callWithResponse('getMeta');
    const keyDay = (r: typeof first) => r.data.rateLimits.find((w) => w.scope === 'key' && w.window === 'day')!;
    expect(keyDay(second).remaining).toBe(keyDay(first).remaining - 1);
    // The header shows the tightest window, one of those listed.
    expect(second.data.rateLimits.map((w) => w.remaining)).toContain(Number(second.response.headers.get('x-ratelimit-remaining')));
    const noAccessLog = await server.ctx.db.selectFrom('access_log').select('id').where('api_key_id', '=', key.id).execute();
    expect(noAccessLog).toHaveLength(0);
  });

  it('lists the event catalogue with the scope of each type and whether this key may subscribe', async () => {
    const key = await server.factories.key(tenant.clinicId, ['webhooks:read', 'patients:read']);
    const res = await server.api(key.token).call('listEventTypes');
    expect(res.data).toHaveLength(SUBSCRIBABLE_EVENT_TYPES.length);
    expect(res.data.find((t) => t.type === 'patient.created')).toEqual({
      type: 'patient.created',
      scope: 'patients:read',
      subscribable: true,
    });
    expect(res.data.find((t) => t.type === 'lead.created')).toEqual({ type: 'lead.created', scope: 'leads:read', subscribable: false });
    const noWebhooks = await server.factories.key(tenant.clinicId, ['patients:read']);
    const none = await server.api(noWebhooks.token).call('listEventTypes');
    expect(none.data.every((t) => !t.subscribable)).toBe(true);
  });
});

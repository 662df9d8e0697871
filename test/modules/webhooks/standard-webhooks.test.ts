/**
 * Destinations that opt in to Standard Webhooks: real deliveries to a real local
 * receiver, verified with the `standardwebhooks` npm package (a library we did not write),
 * also during a secret rotation, and the switch by PATCH.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../../helpers/factories.js';
import type { TestServer } from '../../helpers/server.js';
import { emit, startWebhookRig, type Receiver, type Received, type WebhookRig } from './helpers.js';

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

/** What the library answers for one received request: the parsed envelope, or its error message. */
function libraryVerdict(secret: string, r: Received): { ok: true; payload: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, payload: new Webhook(secret).verify(r.raw.toString('utf8'), r.headers as Record<string, string>) };
  } catch (error) {
    if (error instanceof WebhookVerificationError) return { ok: false, error: error.message };
    throw error;
  }
}

async function standardEndpoint(path: string) {
  const { data, response } = await server.api(tenant.token).callWithResponse('createWebhookEndpoint', {
    body: { url: receiver.url + path, events: ['appointment.created'], signatureScheme: 'standard' },
  });
  expect(response.status).toBe(201);
  expect(data.signatureScheme).toBe('standard');
  return data;
}

describe('Standard Webhooks signatures', () => {
  it('delivers with webhook-id, webhook-timestamp and webhook-signature that the standardwebhooks library verifies', async () => {
    const ep = await standardEndpoint('/std');
    const event = await emit(server.ctx, tenant.clinicId, 'appointment.created', tenant.facilityIds[0]);
    await receiver.waitFor(() => receiver.forPath('/std').length === 1);
    const r = receiver.forPath('/std')[0]!;
    expect(r.headers['webhook-id']).toBe(r.body.id);
    expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
    // The spec's headers are replaced, not added: one scheme per destination.
    expect(r.headers['x-service-signature']).toBeUndefined();
    const verdict = libraryVerdict(ep.secret, r);
    expect(verdict).toEqual({ ok: true, payload: r.body });
    expect(r.body).toMatchObject({ eventId: event.id, type: 'appointment.created' });
    // A changed body, or another destination's secret, is refused by the library.
    expect(libraryVerdict(ep.secret, { ...r, raw: Buffer.from(r.raw.toString('utf8').replace('appointment', 'appointmenT')) })).toEqual({
      ok: false,
      error: 'No matching signature found',
    });
    const other = await standardEndpoint('/std-other');
    expect(libraryVerdict(other.secret, r)).toEqual({ ok: false, error: 'No matching signature found' });
  });

  it('signs with both secrets, space-separated, during a rotation, and the library accepts either', async () => {
    const ep = await standardEndpoint('/std-rotation');
    const rotated = await server.api(tenant.token).call('rotateWebhookEndpointSecret', { params: { path: { id: ep.id } }, body: { overlapMinutes: 60 } });
    await emit(server.ctx, tenant.clinicId, 'appointment.created', tenant.facilityIds[0]);
    await receiver.waitFor(() => receiver.forPath('/std-rotation').length >= 1);
    const r = receiver.forPath('/std-rotation')[0]!;
    expect(String(r.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(libraryVerdict(rotated.secret, r).ok).toBe(true);
    expect(libraryVerdict(ep.secret, r).ok).toBe(true);

    // After the overlap (a rotation with 0 minutes), only the newest secret signs.
    const last = await server.api(tenant.token).call('rotateWebhookEndpointSecret', { params: { path: { id: ep.id } }, body: { overlapMinutes: 0 } });
    await emit(server.ctx, tenant.clinicId, 'appointment.created', tenant.facilityIds[0]);
    await receiver.waitFor(() => receiver.forPath('/std-rotation').length >= 2);
    const r2 = receiver.forPath('/std-rotation')[1]!;
    expect(String(r2.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(libraryVerdict(last.secret, r2).ok).toBe(true);
    expect(libraryVerdict(rotated.secret, r2)).toEqual({ ok: false, error: 'No matching signature found' });
  });

  it('signs the test webhook with the destination scheme too', async () => {
    const ep = await standardEndpoint('/std-test');
    const outcome = await server.api(tenant.token).call('testWebhookEndpoint', { params: { path: { id: ep.id } } });
    expect(outcome.success).toBe(true);
    const r = receiver.forPath('/std-test')[0]!;
    expect(r.headers['webhook-id']).toBe(outcome.id);
    expect(libraryVerdict(ep.secret, r)).toMatchObject({ ok: true, payload: { type: 'webhook.test' } });
  });

  it('switches a destination between the schemes with PATCH; a base64url secret of before must be rotated first', async () => {
    const created = await rig.endpoint(tenant.token, '/switch', ['appointment.created']);
    const patch = (signatureScheme: 'service' | 'standard') =>
      server.api(tenant.token).callWithResponse('updateWebhookEndpoint', { params: { path: { id: created.id } }, body: { signatureScheme } });
    expect((await patch('standard')).data?.signatureScheme).toBe('standard');
    await emit(server.ctx, tenant.clinicId, 'appointment.created', tenant.facilityIds[0]);
    await receiver.waitFor(() => receiver.forPath('/switch').length >= 1);
    expect(libraryVerdict(created.secret, receiver.forPath('/switch')[0]!).ok).toBe(true);

    expect((await patch('service')).data?.signatureScheme).toBe('service');
    // An older secret (base64url, unpadded) cannot be a Standard Webhooks key.
    await server.ctx.db
      .updateTable('webhook_endpoints')
      .set({ secret: 'whsec_' + Buffer.alloc(32, 0xfb).toString('base64url') })
      .where('id', '=', created.id)
      .execute();
    const refused = await server.call('PATCH', `/v1/webhook-endpoints/${created.id}`, { token: tenant.token, body: { signatureScheme: 'standard' } });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'conflict', details: { reason: 'secret_rotation_required' } } });
    const rotated = await server.api(tenant.token).call('rotateWebhookEndpointSecret', { params: { path: { id: created.id } }, body: { overlapMinutes: 0 } });
    expect((await patch('standard')).data?.signatureScheme).toBe('standard');
    await emit(server.ctx, tenant.clinicId, 'appointment.created', tenant.facilityIds[0]);
    await receiver.waitFor(() => receiver.forPath('/switch').length >= 2);
    expect(libraryVerdict(rotated.secret, receiver.forPath('/switch')[1]!).ok).toBe(true);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Running } from '../../src/jobs/scheduler.js';
import { computeSignature } from '../../src/webhooks/signing.js';
import { verifyWebhook } from '../../src/webhooks/verify.js';
import { startDeliveryWorker } from '../../src/webhooks/worker.js';
import type { Tenant } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { emit, startReceiver, until, type Receiver } from './helpers.js';

let server: TestServer;
let receiver: Receiver;
let worker: Running;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer({ config: { webhookAllowInsecure: true, webhookRetryScale: 0.001 } });
  receiver = await startReceiver();
  worker = await startDeliveryWorker(server.ctx);
  tenant = await server.factories.tenant();
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await server.close();
});

async function createEndpoint(path: string, events: string[], token = tenant.token) {
  const res = await server.call('POST', '/v1/webhook-endpoints', { token, body: { url: receiver.url + path, events } });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; secret: string };
}

describe('delivery worker', () => {
  it('delivers a signed envelope with the headers of spec 6.1', async () => {
    const ep = await createEndpoint('/basic', ['patient.created']);
    const patientId = crypto.randomUUID();
    const event = await emit(server.ctx, tenant.clinicId, 'patient.created', tenant.facilityIds[0], { id: patientId });
    await receiver.waitFor(() => receiver.forPath('/basic').length === 1);
    const r = receiver.forPath('/basic')[0]!;
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['user-agent']).toBe('Service-Webhooks/1');
    const key = r.headers['x-service-idempotency-key'] as string;
    const ts = r.headers['x-service-timestamp'] as string;
    expect(r.headers['x-service-signature']).toBe(`v1=${computeSignature(ep.secret, ts, key, r.raw)}`);
    expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(10);
    expect(Object.keys(r.body)).toEqual(['id', 'eventId', 'type', 'createdAt', 'apiVersion', 'livemode', 'facilityId', 'data']);
    expect(r.body).toMatchObject({ id: key, eventId: event.id, type: 'patient.created', apiVersion: 'v1', livemode: true, facilityId: tenant.facilityIds[0], data: { id: patientId } });
    expect(verifyWebhook(r.raw, r.headers, [ep.secret]).ok).toBe(true);

    const delivery = await until(
      () => server.call('GET', `/v1/webhook-deliveries/${key}`, { token: tenant.token }),
      (res) => res.body.status === 'succeeded',
    );
    expect(delivery.body.attempts).toHaveLength(1);
    expect(delivery.body.attempts[0]).toMatchObject({ number: 1, statusCode: 200, error: null, success: true, redelivery: false });
    expect(delivery.text).not.toContain('never be stored');
  });
});

/** The webhook receiver example, over HTTP, with deliveries signed here as the service signs them (spec 6.5). */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookReceiver, MemoryProcessedStore } from '../../examples/webhook-receiver.js';
import { signWebhook, type WebhookEnvelope } from '../../packages/client/src/index.js';

const secret = 'whsec_receiver0123456789abcdefghijk';
const previous = 'whsec_previous0123456789abcdefghijk';
const received: { type: string; key: string }[] = [];
let failNext = false;
const receiver = createWebhookReceiver({
  secrets: [secret, previous],
  store: new MemoryProcessedStore(),
  onEvent: (event, key) => {
    if (failNext) {
      failNext = false;
      throw new Error('database down');
    }
    received.push({ type: event.type, key });
  },
});
let url = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

function envelope(type = 'appointment.created'): { key: string; body: string } {
  const key = randomUUID();
  const event: WebhookEnvelope = {
    id: key,
    eventId: randomUUID(),
    type,
    createdAt: new Date().toISOString(),
    apiVersion: 'v1',
    livemode: true,
    facilityId: null,
    data: { id: randomUUID(), status: 'scheduled' },
  };
  return { key, body: JSON.stringify(event) };
}

async function deliver(body: string, key: string, signWith: string[] = [secret], timestamp = Math.floor(Date.now() / 1000)) {
  const signature = signWith.map((s) => `v1=${signWebhook(s, timestamp, key, body)}`).join(',');
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Service-Webhooks/1',
      'x-service-signature': signature,
      'x-service-timestamp': String(timestamp),
      'x-service-idempotency-key': key,
    },
    body,
  });
  return { status: res.status, body: (await res.json()) as { outcome: string; reason?: string } };
}

describe('webhook receiver example', () => {
  it('processes a signed delivery once and answers 200 to its retries', async () => {
    const { key, body } = envelope();
    expect(await deliver(body, key)).toEqual({ status: 200, body: { status: 200, outcome: 'processed' } });
    // A retry: same body and key, new timestamp and signature.
    const retry = await deliver(body, key, [secret], Math.floor(Date.now() / 1000) - 5);
    expect(retry.status).toBe(200);
    expect(retry.body.outcome).toBe('duplicate');
    expect(received.filter((r) => r.key === key)).toHaveLength(1);
  });

  it('accepts the two signatures of a rotation, and the old secret alone during the overlap', async () => {
    const a = envelope('patient.created');
    expect((await deliver(a.body, a.key, ['whsec_brand_new_secret_not_known_yet', previous])).body.outcome).toBe('processed');
    const b = envelope('patient.updated');
    expect((await deliver(b.body, b.key, [previous])).body.outcome).toBe('processed');
  });

  it('rejects a wrong secret, a tampered body, and a stale timestamp with 401, processing nothing', async () => {
    const before = received.length;
    const a = envelope();
    expect(await deliver(a.body, a.key, ['whsec_wrong'])).toMatchObject({ status: 401, body: { reason: 'invalid_signature' } });
    const signature = `v1=${signWebhook(secret, Math.floor(Date.now() / 1000), a.key, a.body)}`;
    const tampered = await fetch(url, {
      method: 'POST',
      headers: { 'x-service-signature': signature, 'x-service-timestamp': String(Math.floor(Date.now() / 1000)), 'x-service-idempotency-key': a.key },
      body: a.body.replace('scheduled', 'cancelled'),
    });
    expect(tampered.status).toBe(401);
    const stale = await deliver(a.body, a.key, [secret], Math.floor(Date.now() / 1000) - 301);
    expect(stale).toMatchObject({ status: 401, body: { reason: 'timestamp_out_of_tolerance' } });
    const missing = await fetch(url, { method: 'POST', body: a.body });
    expect(missing.status).toBe(401);
    expect(received.length).toBe(before);
    // Rejected deliveries were not remembered: the genuine one is processed.
    expect((await deliver(a.body, a.key)).body.outcome).toBe('processed');
  });

  it('answers 500 when processing fails and processes the retry', async () => {
    const a = envelope();
    failNext = true;
    expect((await deliver(a.body, a.key)).status).toBe(500);
    expect((await deliver(a.body, a.key)).body.outcome).toBe('processed');
    expect(received.filter((r) => r.key === a.key)).toHaveLength(1);
  });
});

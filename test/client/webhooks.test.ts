/** verifyWebhook (spec 6.5): signatures, rotation, tolerance, constant-time comparison inputs. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook, WebhookVerificationError } from '../../packages/client/src/index.js';

const secret = 'whsec_current0123456789abcdefABCDEF';
const oldSecret = 'whsec_previous0123456789abcdefABCDE';
const key = '7d2f8f0a-1b2c-4d3e-8f9a-0b1c2d3e4f50';
const body = JSON.stringify({
  id: key,
  eventId: '1e8b9c7d-6a5f-4e3d-2c1b-0a9f8e7d6c5b',
  type: 'patient.created',
  createdAt: '2026-03-02T09:30:00.000Z',
  apiVersion: 'v1',
  livemode: true,
  facilityId: null,
  data: { id: 'f3a1b2c4-d5e6-4f70-8a9b-0c1d2e3f4a5b', note: 'accenti: è à ü' },
});
const now = 1_780_000_000;

function headers(signature: string, timestamp: number | string = now, idem = key): Record<string, string> {
  return { 'X-Service-Signature': signature, 'X-Service-Timestamp': String(timestamp), 'X-Service-Idempotency-Key': idem, 'Content-Type': 'application/json' };
}

function reason(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as WebhookVerificationError).reason;
  }
  return 'verified';
}

describe('verifyWebhook', () => {
  it('signs exactly "v1\\n<timestamp>\\n<key>\\n<body>" with HMAC-SHA256, lowercase hex', () => {
    const expected = createHmac('sha256', secret).update(`v1\n${now}\n${key}\n${body}`).digest('hex');
    expect(signWebhook(secret, now, key, body)).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it('accepts a valid signature and returns the key, timestamp and parsed envelope', () => {
    const sig = signWebhook(secret, now, key, body);
    const result = verifyWebhook(body, headers(`v1=${sig}`), secret, { now: now * 1000 });
    expect(result.idempotencyKey).toBe(key);
    expect(result.timestamp).toBe(now);
    expect(result.event.type).toBe('patient.created');
    expect(result.event.data.note).toBe('accenti: è à ü');
  });

  it('works on raw bytes, on a Headers object and with lower-case header names', () => {
    const sig = signWebhook(secret, now, key, body);
    const bytes = new TextEncoder().encode(body);
    expect(verifyWebhook(bytes, new Headers(headers(`v1=${sig}`)), secret, { now: now * 1000 }).idempotencyKey).toBe(key);
    const lower = Object.fromEntries(Object.entries(headers(`v1=${sig}`)).map(([k, v]) => [k.toLowerCase(), v]));
    expect(verifyWebhook(Buffer.from(body), lower, [secret], { now: new Date(now * 1000) }).timestamp).toBe(now);
  });

  it('accepts either signature during a rotation, and either of the receiver’s secrets', () => {
    const both = `v1=${signWebhook(secret, now, key, body)},v1=${signWebhook(oldSecret, now, key, body)}`;
    expect(reason(() => verifyWebhook(body, headers(both), secret, { now: now * 1000 }))).toBe('verified');
    expect(reason(() => verifyWebhook(body, headers(both), oldSecret, { now: now * 1000 }))).toBe('verified');
    const onlyOld = `v1=${signWebhook(oldSecret, now, key, body)}`;
    expect(reason(() => verifyWebhook(body, headers(onlyOld), [secret, oldSecret], { now: now * 1000 }))).toBe('verified');
  });

  it('rejects a changed body, key, timestamp or secret', () => {
    const sig = `v1=${signWebhook(secret, now, key, body)}`;
    expect(reason(() => verifyWebhook(body + ' ', headers(sig), secret, { now: now * 1000 }))).toBe('invalid_signature');
    expect(reason(() => verifyWebhook(body, headers(sig, now, 'another-key'), secret, { now: now * 1000 }))).toBe('invalid_signature');
    expect(reason(() => verifyWebhook(body, headers(sig, now + 1), secret, { now: now * 1000 }))).toBe('invalid_signature');
    expect(reason(() => verifyWebhook(body, headers(sig), 'whsec_other', { now: now * 1000 }))).toBe('invalid_signature');
    expect(reason(() => verifyWebhook(body, headers(sig.toUpperCase()), secret, { now: now * 1000 }))).toBe('invalid_signature');
    expect(reason(() => verifyWebhook(body, headers(`v2=${signWebhook(secret, now, key, body)}`), secret, { now: now * 1000 }))).toBe('invalid_signature');
    expect(reason(() => verifyWebhook(body, headers('v1=abc'), secret, { now: now * 1000 }))).toBe('invalid_signature');
  });

  it('rejects timestamps beyond the tolerance (default 300 s), both ways', () => {
    const at = (t: number) => headers(`v1=${signWebhook(secret, t, key, body)}`, t);
    expect(reason(() => verifyWebhook(body, at(now - 300), secret, { now: now * 1000 }))).toBe('verified');
    expect(reason(() => verifyWebhook(body, at(now + 300), secret, { now: now * 1000 }))).toBe('verified');
    expect(reason(() => verifyWebhook(body, at(now - 301), secret, { now: now * 1000 }))).toBe('timestamp_out_of_tolerance');
    expect(reason(() => verifyWebhook(body, at(now + 301), secret, { now: now * 1000 }))).toBe('timestamp_out_of_tolerance');
    expect(reason(() => verifyWebhook(body, at(now - 50), secret, { now: now * 1000, toleranceSeconds: 30 }))).toBe('timestamp_out_of_tolerance');
    expect(reason(() => verifyWebhook(body, at(now), secret))).toBe('timestamp_out_of_tolerance');
  });

  it('rejects missing headers, a malformed timestamp, no secret, and a body that is not JSON', () => {
    const sig = `v1=${signWebhook(secret, now, key, body)}`;
    const h = headers(sig);
    delete h['X-Service-Idempotency-Key'];
    expect(reason(() => verifyWebhook(body, h, secret, { now: now * 1000 }))).toBe('missing_header');
    expect(reason(() => verifyWebhook(body, headers(sig, '17e8'), secret, { now: now * 1000 }))).toBe('invalid_timestamp');
    expect(reason(() => verifyWebhook(body, headers(sig), [], { now: now * 1000 }))).toBe('no_secret');
    const text = 'not json';
    expect(reason(() => verifyWebhook(text, headers(`v1=${signWebhook(secret, now, key, text)}`), secret, { now: now * 1000 }))).toBe('invalid_body');
  });
});

/**
 * Receiver side of spec 6.5, for integrators: verify a webhook before trusting it.
 *
 *   const result = verifyWebhook(rawBody, req.headers, [process.env.WHSEC], { toleranceSeconds: 300 });
 *   if (!result.ok) return res.status(400).end();
 *   // result.idempotencyKey: skip the work when already processed, answer 200.
 *
 * Pass the raw body bytes (before any JSON parsing) and every secret currently valid for
 * the destination (during a rotation: new and old). One matching signature is enough.
 */
import { timingSafeEqual } from 'node:crypto';
import { computeSignature } from './signing.js';

export type HeaderBag = Record<string, string | string[] | undefined> | Headers;

export interface VerifyOptions {
  /** Largest accepted distance between the timestamp and now; spec 6.5 says 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The current time, for tests; default now. */
  now?: Date;
}

export type VerifyResult =
  | { ok: true; idempotencyKey: string; timestamp: number }
  | { ok: false; reason: 'missing_headers' | 'bad_timestamp' | 'stale_timestamp' | 'no_matching_signature' };

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

export function verifyWebhook(
  rawBody: string | Buffer | Uint8Array,
  headers: HeaderBag,
  secrets: readonly string[],
  options: VerifyOptions = {},
): VerifyResult {
  const tolerance = options.toleranceSeconds ?? 300;
  const signature = header(headers, 'x-service-signature');
  const timestamp = header(headers, 'x-service-timestamp');
  const key = header(headers, 'x-service-idempotency-key');
  if (!signature || !timestamp || !key) return { ok: false, reason: 'missing_headers' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'bad_timestamp' };
  const ts = Number(timestamp);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - ts) > tolerance) return { ok: false, reason: 'stale_timestamp' };

  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const given = signature
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.startsWith('v1='))
    .map((part) => Buffer.from(part.slice(3), 'utf8'));
  for (const secret of secrets) {
    const expected = Buffer.from(computeSignature(secret, timestamp, key, body), 'utf8');
    for (const candidate of given) {
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) {
        return { ok: true, idempotencyKey: key, timestamp: ts };
      }
    }
  }
  return { ok: false, reason: 'no_matching_signature' };
}

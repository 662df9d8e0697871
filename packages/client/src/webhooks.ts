/**
 * Webhook signature verification (spec 6.5).
 *
 * Signature = lowercase hex HMAC-SHA256, keyed with the destination secret (the whole
 * `whsec_…` string), over four lines joined by "\n":
 *   v1
 *   <X-Service-Timestamp>
 *   <X-Service-Idempotency-Key>
 *   <raw body, byte for byte>
 * sent as `X-Service-Signature: v1=<hex>` (two, comma-separated, during a secret rotation).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** Largest allowed distance between the timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The current time (default Date.now()); for tests. */
  now?: number | Date;
}

/** The envelope of spec 6.2. */
export interface WebhookEnvelope<Data = Record<string, unknown>> {
  id: string;
  eventId: string;
  type: string;
  createdAt: string;
  apiVersion: string;
  livemode: boolean;
  facilityId: string | null;
  data: Data;
}

export interface VerifiedWebhook<Data = Record<string, unknown>> {
  /** X-Service-Idempotency-Key: the delivery id, identical on every attempt: de-duplicate on it. */
  idempotencyKey: string;
  /** X-Service-Timestamp, Unix seconds. */
  timestamp: number;
  /** The parsed body. */
  event: WebhookEnvelope<Data>;
}

/** Every reason verifyWebhook refuses a request for (WebhookVerificationError.reason). */
export const WEBHOOK_VERIFICATION_REASONS = [
  'missing_header',
  'invalid_timestamp',
  'timestamp_out_of_tolerance',
  'invalid_signature',
  'invalid_body',
  'no_secret',
] as const;

export type WebhookVerificationReason = (typeof WEBHOOK_VERIFICATION_REASONS)[number];

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(',') : value;
}

function toBuffer(body: string | Uint8Array): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** The hex signature of one delivery attempt (what the service sends after `v1=`). */
export function signWebhook(secret: string, timestamp: number | string, idempotencyKey: string, rawBody: string | Uint8Array): string {
  return createHmac('sha256', secret).update(`v1\n${timestamp}\n${idempotencyKey}\n`).update(toBuffer(rawBody)).digest('hex');
}

/**
 * Verifies a webhook request and returns its parsed envelope, or throws WebhookVerificationError.
 * `rawBody` must be the bytes received, before any JSON parsing. `secrets` may hold several
 * (your current and previous secret while you rotate): one valid signature is enough.
 */
export function verifyWebhook<Data = Record<string, unknown>>(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): VerifiedWebhook<Data> {
  const keys = (typeof secrets === 'string' ? [secrets] : [...secrets]).filter((s) => s.length > 0);
  if (keys.length === 0) throw new WebhookVerificationError('no_secret', 'No webhook secret given');
  const signatureHeader = header(headers, 'x-service-signature');
  const timestampHeader = header(headers, 'x-service-timestamp');
  const idempotencyKey = header(headers, 'x-service-idempotency-key');
  if (!signatureHeader || !timestampHeader || !idempotencyKey) {
    throw new WebhookVerificationError('missing_header', 'X-Service-Signature, X-Service-Timestamp and X-Service-Idempotency-Key are required');
  }
  if (!/^\d{1,15}$/.test(timestampHeader.trim())) {
    throw new WebhookVerificationError('invalid_timestamp', 'X-Service-Timestamp is not Unix seconds');
  }
  const timestamp = Number(timestampHeader.trim());
  const tolerance = options.toleranceSeconds ?? 300;
  const nowMs = options.now === undefined ? Date.now() : options.now instanceof Date ? options.now.getTime() : options.now;
  if (Math.abs(nowMs / 1000 - timestamp) > tolerance) {
    throw new WebhookVerificationError('timestamp_out_of_tolerance', `X-Service-Timestamp is more than ${tolerance} s away from now`);
  }
  const received = signatureHeader
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.startsWith('v1='))
    .map((part) => part.slice(3))
    .filter((hex) => /^[0-9a-f]{64}$/.test(hex))
    .map((hex) => Buffer.from(hex, 'hex'));
  const body = toBuffer(rawBody);
  let valid = false;
  for (const secret of keys) {
    const expected = Buffer.from(signWebhook(secret, timestampHeader.trim(), idempotencyKey, body), 'hex');
    // Compare with every candidate (no early exit), each in constant time.
    for (const candidate of received) if (timingSafeEqual(candidate, expected)) valid = true;
  }
  if (!valid) throw new WebhookVerificationError('invalid_signature', 'No valid v1 signature for this body and timestamp');
  let event: WebhookEnvelope<Data>;
  try {
    event = JSON.parse(body.toString('utf8')) as WebhookEnvelope<Data>;
  } catch {
    throw new WebhookVerificationError('invalid_body', 'The body is not JSON');
  }
  return { idempotencyKey, timestamp, event };
}

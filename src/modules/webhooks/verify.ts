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
import { verifyWebhook as verifyAndParse, WebhookVerificationError, type WebhookHeaders } from '../../../packages/client/src/webhooks.js';

export type HeaderBag = WebhookHeaders;

export interface VerifyOptions {
  /** Largest accepted distance between the timestamp and now; spec 6.5 says 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The current time, for tests; default now. */
  now?: Date;
}

export type VerifyResult =
  | { ok: true; idempotencyKey: string; timestamp: number }
  | { ok: false; reason: 'missing_headers' | 'bad_timestamp' | 'stale_timestamp' | 'no_matching_signature' | 'invalid_body' };

const REASONS = {
  missing_header: 'missing_headers',
  invalid_timestamp: 'bad_timestamp',
  timestamp_out_of_tolerance: 'stale_timestamp',
  invalid_signature: 'no_matching_signature',
  no_secret: 'no_matching_signature',
  invalid_body: 'invalid_body',
} as const;

/**
 * The same check as the client package's verifyWebhook (one implementation of spec 6.5 in
 * the repository), answered as a result instead of an exception.
 */
export function verifyWebhook(
  rawBody: string | Buffer | Uint8Array,
  headers: HeaderBag,
  secrets: readonly string[],
  options: VerifyOptions = {},
): VerifyResult {
  try {
    const { idempotencyKey, timestamp } = verifyAndParse(rawBody, headers, secrets, options);
    return { ok: true, idempotencyKey, timestamp };
  } catch (error) {
    if (error instanceof WebhookVerificationError) return { ok: false, reason: REASONS[error.reason] };
    throw error;
  }
}

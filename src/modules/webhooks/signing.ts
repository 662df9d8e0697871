/**
 * Webhook signatures. Two schemes, chosen per destination (`signatureScheme`):
 * - `service` (the default, spec 6.5): `X-Service-Signature: v1=<hex>`, HMAC-SHA256 with the
 *   secret string as key over "v1\n<timestamp>\n<idempotency key>\n<body>";
 * - `standard` (Standard Webhooks, https://www.standardwebhooks.com): `webhook-id`,
 *   `webhook-timestamp`, `webhook-signature: v1,<base64>`, HMAC-SHA256 with the base64-decoded
 *   secret (after `whsec_`) as key over "<id>.<timestamp>.<body>", so any of its libraries verifies.
 * During a rotation's overlap both secrets sign: `v1=<new>,v1=<old>` or `v1,<new> v1,<old>`.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { SignatureScheme } from '../../db/tables/webhooks.js';
import { signWebhook } from './verify.js';

const SECRET_PREFIX = 'whsec_';
export const SIGNATURE_SCHEMES = ['service', 'standard'] as const satisfies readonly SignatureScheme[];

/**
 * A new signing secret: `whsec_` and 256 random bits in standard, padded base64, the form the
 * Standard Webhooks libraries decode (older secrets are base64url: they sign with
 * the `service` scheme only; a rotation gives one of this form).
 */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The secret is `whsec_` and standard padded base64: usable as a Standard Webhooks key. */
export function isStandardSecret(secret: string): boolean {
  return /^whsec_(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(secret) && secret.length > SECRET_PREFIX.length;
}

/** Lowercase hex HMAC-SHA256 of the four-line string; `body` byte for byte. */
export function computeSignature(secret: string, timestamp: string, idempotencyKey: string, body: string | Buffer): string {
  return signWebhook(secret, timestamp, idempotencyKey, body);
}

/** The X-Service-Signature value: `v1=<new>`, or `v1=<new>,v1=<old>` during a rotation's overlap. */
function signatureHeader(secrets: readonly string[], timestamp: string, idempotencyKey: string, body: string | Buffer): string {
  return secrets.map((s) => `v1=${computeSignature(s, timestamp, idempotencyKey, body)}`).join(',');
}

/** Standard Webhooks' signature of one secret: base64 HMAC-SHA256 over `<id>.<timestamp>.<body>`. */
function standardSignature(secret: string, id: string, timestamp: string, body: string | Buffer): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
}

/** The webhook-signature value: `v1,<new>`, or `v1,<new> v1,<old>` (space-separated) during an overlap. */
function standardSignatureHeader(secrets: readonly string[], timestamp: string, id: string, body: string | Buffer): string {
  // An older secret (base64url) is not a key the libraries can decode: it does not sign.
  return secrets
    .filter(isStandardSecret)
    .map((s) => `v1,${standardSignature(s, id, timestamp, body)}`)
    .join(' ');
}

/** Secrets that sign now: the current one, and the previous one during a rotation's overlap. */
export function signingSecrets(d: { secret: string; previous_secret: string | null; previous_secret_expires_at: Date | null }, now: Date): string[] {
  const secrets = [d.secret];
  if (d.previous_secret && d.previous_secret_expires_at && new Date(d.previous_secret_expires_at).getTime() > now.getTime()) {
    secrets.push(d.previous_secret);
  }
  return secrets;
}

/**
 * Headers of one attempt (content-type and user-agent are added by the sender): spec 6.1's
 * X-Service-* trio, or for `standard` the webhook-* trio instead, with the same delivery id
 * (the receiver's deduplication key) and timestamp.
 */
export function deliveryHeaders(deliveryId: string, body: string, secrets: string[], now: Date, scheme: SignatureScheme = 'service'): Record<string, string> {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  if (scheme === 'standard') {
    return {
      'webhook-id': deliveryId,
      'webhook-timestamp': timestamp,
      'webhook-signature': standardSignatureHeader(secrets, timestamp, deliveryId, body),
    };
  }
  return {
    'x-service-signature': signatureHeader(secrets, timestamp, deliveryId, body),
    'x-service-timestamp': timestamp,
    'x-service-idempotency-key': deliveryId,
  };
}

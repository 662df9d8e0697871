/** Webhook signatures (spec 6.5): HMAC-SHA256 over "v1\n<timestamp>\n<idempotency key>\n<body>". */
import { randomBytes } from 'node:crypto';
import { signWebhook } from './verify.js';

export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 256 random bits, base64url. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/** Lowercase hex HMAC-SHA256 of the four-line string; `body` byte for byte. */
export function computeSignature(secret: string, timestamp: string, idempotencyKey: string, body: string | Buffer): string {
  return signWebhook(secret, timestamp, idempotencyKey, body);
}

/** The X-Service-Signature value: `v1=<new>`, or `v1=<new>,v1=<old>` during a rotation's overlap. */
export function signatureHeader(secrets: readonly string[], timestamp: string, idempotencyKey: string, body: string | Buffer): string {
  return secrets.map((s) => `v1=${computeSignature(s, timestamp, idempotencyKey, body)}`).join(',');
}

/** Secrets that sign now: the current one, and the previous one during a rotation's overlap. */
export function signingSecrets(d: { secret: string; previous_secret: string | null; previous_secret_expires_at: Date | null }, now: Date): string[] {
  const secrets = [d.secret];
  if (d.previous_secret && d.previous_secret_expires_at && new Date(d.previous_secret_expires_at).getTime() > now.getTime()) {
    secrets.push(d.previous_secret);
  }
  return secrets;
}

/** Headers of spec 6.1 for one attempt (content-type and user-agent are added by the sender). */
export function deliveryHeaders(deliveryId: string, body: string, secrets: string[], now: Date): Record<string, string> {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  return {
    'x-service-signature': signatureHeader(secrets, timestamp, deliveryId, body),
    'x-service-timestamp': timestamp,
    'x-service-idempotency-key': deliveryId,
  };
}

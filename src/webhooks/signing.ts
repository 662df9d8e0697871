/** Webhook signatures (spec 6.5): HMAC-SHA256 over "v1\n<timestamp>\n<idempotency key>\n<body>". */
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 256 random bits, base64url. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/** Lowercase hex HMAC-SHA256 of the four-line string; `body` byte for byte. */
export function computeSignature(secret: string, timestamp: string, idempotencyKey: string, body: string | Buffer): string {
  return createHmac('sha256', secret)
    .update(`v1\n${timestamp}\n${idempotencyKey}\n`)
    .update(body)
    .digest('hex');
}

/** The X-Service-Signature value: `v1=<new>`, or `v1=<new>,v1=<old>` during a rotation's overlap. */
export function signatureHeader(secrets: readonly string[], timestamp: string, idempotencyKey: string, body: string | Buffer): string {
  return secrets.map((s) => `v1=${computeSignature(s, timestamp, idempotencyKey, body)}`).join(',');
}

/**
 * Receiver side of spec 6.5: the one verifyWebhook of the project. The client package
 * (`@dental-clinic/client`) holds it; the service, the docs' snippet (docs/webhooks.md) and
 * `dental-clinic listen` use this same function, so they agree on the result and on the
 * failure reasons (WebhookVerificationError.reason: WEBHOOK_VERIFICATION_REASONS).
 *
 *   const { event, idempotencyKey } = verifyWebhook(rawBody, req.headers, [process.env.WHSEC!], { toleranceSeconds: 300 });
 *
 * Pass the raw body bytes (before any JSON parsing) and every secret currently valid for the
 * destination (during a rotation: new and old). One matching signature is enough.
 */
export { signWebhook, verifyWebhook, WEBHOOK_VERIFICATION_REASONS, WebhookVerificationError } from '../../../packages/client/src/webhooks.js';

/** @dental-clinic/client: the TypeScript client of the Dental Clinic Management API. */
export { createClient, DentalClinicClient } from './client.js';
export type { DentalClinicClientOptions, LooseInit, OperationData, OperationInfo, OperationInit, PageItem, RequestExtras, ResponseData } from './client.js';
export { ApiClientError, isApiClientError, parseRetryAfter } from './errors.js';
export type { ApiClientErrorInit, ClientErrorCode, ErrorCode, KnownErrorCode } from './errors.js';
export { backoffDelay, createRetryingFetch } from './retry.js';
export type { FetchLike, RetryInfo, RetryOptions } from './retry.js';
export { signWebhook, verifyWebhook, WEBHOOK_VERIFICATION_REASONS, WebhookVerificationError } from './webhooks.js';
export type { VerifiedWebhook, VerifyWebhookOptions, WebhookEnvelope, WebhookHeaders, WebhookVerificationReason } from './webhooks.js';
export { operations } from './operations.js';
export type { OperationId } from './operations.js';
export type { components, operations as OperationTypes, paths } from './schema.js';

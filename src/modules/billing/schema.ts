/**
 * Billing on the wire (spec 2.10): quotes (treatment plans) with items, invoices
 * with lines, payments, payment plans with installments and a patient's balance. The schemas
 * both planes validate and serialize with (/v1 and the back office), and the service's types
 * derived from them. Amounts are euro with at most two decimals (src/modules/billing/money.ts).
 * One file a noun (quote-, invoice-, plan-, payment-schema.ts, what they share in
 * shared-schema.ts); this file keeps the one import path routes and events use.
 */
export { ACCEPTANCE_CHANNELS, isFdiTooth, type QuoteStatus } from './shared-schema.js';
export * from './quote-schema.js';
export * from './invoice-schema.js';
export * from './plan-schema.js';
export * from './payment-schema.js';

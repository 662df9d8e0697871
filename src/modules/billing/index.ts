/** The front door of src/modules/billing: what code outside the module uses of it (test/layers.test.ts). */
export { patientBalance } from './balance.js';
export { invoiceBodyIssues, paymentBodyIssues, paymentPlanBodyIssues, quoteBodyIssues } from './checks.js';
export { addDays, localDate } from './dates.js';
export { findInvoice, issueInvoice, listInvoices, voidInvoice } from './invoices.js';
export { billingJobs } from './jobs.js';
export { findPayment, listPayments, recordPayment } from './payments.js';
export { createPaymentPlan, listPaymentPlans } from './plans.js';
export { createQuote, decideQuote, findQuote, listQuotes, quoteLoggedFields, updateQuote } from './quotes.js';
export { BILLING_REASONS } from './reasons.js';
export {
  AcceptQuoteBody,
  AdminPaymentBody,
  BalanceSchema,
  InvoiceListQuerySchema,
  InvoiceSchema,
  NewInvoiceBody,
  NewPaymentBody,
  NewPaymentPlanBody,
  NewQuoteBody,
  PaymentListQuerySchema,
  PaymentPlanListQuerySchema,
  PaymentPlanSchema,
  PaymentSchema,
  PresentQuoteBody,
  QuoteChangesBody,
  QuoteListQuerySchema,
  QuoteSchema,
  QuoteStatusChangeBody,
  RejectQuoteBody,
} from './schema.js';
export type { InvoiceView, QuoteView } from './schema.js';

/** The front door of src/modules/confirmations: what code outside the module uses of it (test/layers.test.ts). */
export { rulesBodyIssues } from './checks.js';
export { confirmationJobs } from './jobs.js';
export { CONFIRMATION_REASONS } from './reasons.js';
export { ConfirmationAttemptSchema, ConfirmationListQuerySchema, ConfirmationRulesSchema, ConfirmationSchema, NewConfirmationAttemptSchema } from './schema.js';
export { clearConfirmationOptOut, getConfirmationRules, listConfirmations, recordConfirmationAttempt, setConfirmationRules } from './service.js';

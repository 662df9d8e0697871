/** The front door of src/modules/recalls: what code outside the module uses of it (test/layers.test.ts). */
export { attemptBodyIssues, rulesBodyIssues } from './checks.js';
export { RECALL_REASONS } from './reasons.js';
export {
  NewRecallAttemptSchema,
  RecallAttemptListQuerySchema,
  RecallAttemptSchema,
  RecallListQuerySchema,
  RecallPatientParams,
  RecallRulesSchema,
  RecallSchema,
  SNOOZE_HOURS,
} from './schema.js';
export {
  attemptView,
  clearRecallOptOut,
  getRecallRules,
  listAttempts,
  listRecalls,
  recordAttempt,
  refreshPatientRecall,
  refreshRecallWorklists,
  setRecallRules,
} from './service.js';

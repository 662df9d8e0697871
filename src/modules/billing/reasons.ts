/** The closed sets of `details.reason` each billing operation can answer (route `config.reasons`). */
import type { DeclaredReasons } from '../../core/errors.js';

export const BILLING_REASONS = {
  setTreatmentPlanStatus: { conflict: ['invalid_transition'] },
  issueInvoice: { conflict: ['duplicate_number'] },
  recordPayment: { conflict: ['exceeds_balance'] },
} as const satisfies Record<string, DeclaredReasons>;

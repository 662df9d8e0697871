/** The closed sets of `details.reason` each billing operation can answer (route `config.reasons`). */
import type { DeclaredReasons } from '../../core/errors.js';
import { SIGNED_DOCUMENT_REASONS } from './signature.js';

export const BILLING_REASONS = {
  /** Back office: the old single status move (present, accept, reject). */
  setTreatmentPlanStatus: { conflict: ['invalid_transition', 'quote_expired', ...SIGNED_DOCUMENT_REASONS], forbidden: ['signature_required'] },
  updateTreatmentPlan: { conflict: ['invalid_transition'] },
  presentTreatmentPlan: { conflict: ['invalid_transition'] },
  acceptTreatmentPlan: { conflict: ['invalid_transition', 'quote_expired', ...SIGNED_DOCUMENT_REASONS], forbidden: ['signature_required'] },
  rejectTreatmentPlan: { conflict: ['invalid_transition'] },
  cancelTreatmentPlan: { conflict: ['invalid_transition'] },
  issueInvoice: { conflict: ['duplicate_number'] },
  voidInvoice: { conflict: ['invalid_transition', 'invoice_has_payments'] },
  recordPayment: { conflict: ['exceeds_balance', 'reference_reused'] },
} as const satisfies Record<string, DeclaredReasons>;

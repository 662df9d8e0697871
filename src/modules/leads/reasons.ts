/** The closed sets of `details.reason` each lead operation can answer (route `config.reasons`). */
import type { DeclaredReasons } from '../../core/errors.js';
import { PATIENT_REASONS } from '../patients/index.js';

export const LEAD_REASONS = {
  update: { conflict: ['lead_converted'] },
  /** Converting creates the patient: the patient creation's reasons too. */
  convert: { conflict: ['already_converted', ...PATIENT_REASONS.create.conflict], forbidden: PATIENT_REASONS.create.forbidden },
} as const satisfies Record<string, DeclaredReasons>;

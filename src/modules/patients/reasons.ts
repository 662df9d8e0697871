/** The closed sets of `details.reason` each patient operation can answer (route `config.reasons`). */
import type { DeclaredReasons } from '../../core/errors.js';

const create = { conflict: ['duplicate_patient'], forbidden: ['plan_limit'] } as const satisfies DeclaredReasons;

export const PATIENT_REASONS = {
  create,
  update: { conflict: ['patient_erased'] },
  archive: { conflict: ['patient_erased', 'already_archived'] },
  erase: { conflict: ['already_erased'] },
  import: { conflict: ['duplicate_patient', 'duplicate_in_list'], forbidden: ['plan_limit'] },
} as const satisfies Record<string, DeclaredReasons>;

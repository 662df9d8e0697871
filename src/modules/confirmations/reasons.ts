/** The closed sets of `details.reason` of the confirmation operations (route `config.reasons`). */
import type { DeclaredReasons } from '../../core/errors.js';

export const CONFIRMATION_REASONS = {
  attempt: { conflict: ['external_call_id_used', 'not_answerable'] },
} as const satisfies Record<string, DeclaredReasons>;

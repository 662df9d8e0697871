/** The closed sets of `details.reason` of the recall operations (route `config.reasons`). */
import type { DeclaredReasons } from '../../core/errors.js';

export const RECALL_REASONS = {
  attempt: { conflict: ['external_call_id_used'] },
} as const satisfies Record<string, DeclaredReasons>;

/** The closed sets of `details.reason` each conversation operation can answer (route `config.reasons`). */
import type { DeclaredReasons } from '../../core/errors.js';

export const CONVERSATION_REASONS = {
  updateBot: { conflict: ['handed_to_clinic'] },
  recordMessage: { conflict: ['opted_out'] },
} as const satisfies Record<string, DeclaredReasons>;

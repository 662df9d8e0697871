/** The closed sets of `details.reason` each API-key operation can answer (route `config.reasons`). */
import type { DeclaredReasons } from '../../core/errors.js';

export const KEY_REASONS = {
  replace: { conflict: ['key_revoked'] },
} as const satisfies Record<string, DeclaredReasons>;

/** The closed sets of `details.reason` of the hold operations (route `config.reasons`). */
import type { DeclaredReasons } from '../../core/errors.js';

export const HOLD_REASONS = {
  create: { conflict: ['hold_limit', 'hold_limit_calendar', 'hold_life_exceeded'], forbidden: ['not_bookable_by_agent'] },
} as const satisfies Record<string, DeclaredReasons>;

/** The closed reasons of the demo's operations. */
import type { DeclaredReasons } from '../core/errors.js';

export const DEMO_REASONS = {
  reset: { forbidden: ['live_clinic'] },
} as const satisfies Record<string, DeclaredReasons>;

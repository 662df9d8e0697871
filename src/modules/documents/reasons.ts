/** The closed sets of `details.reason` each document operation can answer (route `config.reasons`). */
import type { DeclaredReasons } from '../../core/errors.js';

export const DOCUMENT_REASONS = {
  /** `complete` before any byte arrived (and the link has not expired yet). */
  complete: { conflict: ['upload_missing'] },
  /** The bytes of a document that is not `available` (pending, rejected, or purged). */
  content: { conflict: ['not_available'] },
} as const satisfies Record<string, DeclaredReasons>;

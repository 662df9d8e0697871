/** The error envelope of spec 7: what an ApiError (src/core/errors.ts) looks like on the wire. */
import type { ApiError, ErrorCode, ErrorDetails } from '../core/errors.js';

interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details: ErrorDetails; requestId: string };
}

export function errorEnvelope(error: ApiError, requestId: string): ErrorEnvelope {
  return { error: { code: error.code, message: error.message, details: error.details, requestId } };
}

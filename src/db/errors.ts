/**
 * The SQLSTATE codes the services act on (PostgreSQL, appendix A). A database error carries its
 * code in `code` on both engines (pg's DatabaseError and PGlite's).
 */
export const SQLSTATE = {
  foreignKeyViolation: '23503',
  uniqueViolation: '23505',
  exclusionViolation: '23P01',
  lockNotAvailable: '55P03',
} as const;

export function hasSqlState(error: unknown, state: (typeof SQLSTATE)[keyof typeof SQLSTATE]): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === state;
}

/** Socket errors of a server that is down, restarting or unreachable. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
/**
 * SQLSTATEs of a server going away or not taking connections: admin_shutdown, crash_shutdown,
 * cannot_connect_now, too_many_connections (class 08, connection exception, is matched whole).
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** pg's own errors for a lost or unobtainable connection (plain Errors without a code). */
const LOST_CONNECTION =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect|Connection terminated due to connection timeout)/;

/**
 * Whether a database error means the database cannot be reached (a 503, retry later) rather
 * than that the statement failed. Looks through `cause` and AggregateError's `errors`.
 */
export function isDatabaseUnreachable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const { code, message, cause, errors } = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
  if (typeof message === 'string' && LOST_CONNECTION.test(message)) return true;
  if (Array.isArray(errors) && errors.some((e) => isDatabaseUnreachable(e, depth + 1))) return true;
  return isDatabaseUnreachable(cause, depth + 1);
}

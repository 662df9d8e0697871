/**
 * The SQLSTATE codes the services act on (PostgreSQL, appendix A). A database error carries its
 * code in `code` on both engines (pg's DatabaseError and PGlite's).
 */
export const SQLSTATE = {
  foreignKeyViolation: '23503',
  uniqueViolation: '23505',
  exclusionViolation: '23P01',
} as const;

export function hasSqlState(error: unknown, state: (typeof SQLSTATE)[keyof typeof SQLSTATE]): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === state;
}

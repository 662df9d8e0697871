/**
 * The checks of the voice context's query that need no database: the caller's and the called
 * number are phone numbers (the caller may be `anonymous`). For the service on a valid query and
 * the route's `config.queryIssues` on one its schema refused (src/lib/loose.ts).
 */
import type { ValidationIssue } from '../../core/errors.js';
import { phoneIssue, record } from '../../lib/loose.js';

/** A number that is `anonymous` (a hidden caller) is no number to check. */
export const isAnonymous = (value: string): boolean => value.trim().toLowerCase() === 'anonymous';

export function contextQueryIssues(query: unknown, env: { region: string }): ValidationIssue[] {
  const q = record(query);
  return (['from', 'to'] as const).flatMap((path) => {
    const value = q[path];
    return typeof value === 'string' && !isAnonymous(value) ? phoneIssue(value, env.region, path) : [];
  });
}

/**
 * The checks of a new API key's body that need no database: known scopes, a facility list that
 * is not empty, an expiry in the future. For the service on a valid body (its callers outside
 * HTTP too: the demo seeding) and the route's `config.bodyIssues` on a body its schema refused
 * (src/lib/loose.ts); whether the facilities are the clinic's is the service's, in the database.
 */
import type { ValidationIssue } from '../../core/errors.js';
import { instant, list, record } from '../../lib/loose.js';
import { isScope } from './scopes.js';

export function keyBodyIssues(body: unknown, _env?: unknown, now = Date.now()): ValidationIssue[] {
  const b = record(body);
  const issues: ValidationIssue[] = [];
  list(b.scopes).forEach((s, i) => {
    if (typeof s === 'string' && !isScope(s)) issues.push({ path: `scopes.${i}`, message: `permesso sconosciuto: ${s}` });
  });
  if (Array.isArray(b.facilityIds) && b.facilityIds.length === 0)
    issues.push({ path: 'facilityIds', message: 'deve contenere almeno una sede, oppure essere null' });
  const expiresAt = instant(b.expiresAt);
  if (expiresAt !== undefined && expiresAt <= now) issues.push({ path: 'expiresAt', message: 'deve essere nel futuro' });
  return issues;
}

/**
 * The checks of a call's body that need no database: `from` and `to` are phone numbers or
 * `anonymous`. For the service on a valid body and the route's `config.bodyIssues` on a body
 * its schema refused (src/lib/loose.ts).
 */
import type { ActorEnvironment } from '../../core/actor.js';
import type { ValidationIssue } from '../../core/errors.js';
import { phoneIssue, record } from '../../lib/loose.js';

export const ANONYMOUS = 'anonymous';

/** Whether a number is the hidden caller's `anonymous` (any case, spaces around). */
export const isAnonymous = (value: string): boolean => value.trim().toLowerCase() === ANONYMOUS;

export function callBodyIssues(body: unknown, env: Pick<ActorEnvironment, 'region'>): ValidationIssue[] {
  const b = record(body);
  return (['from', 'to'] as const).flatMap((path) => {
    const value = b[path];
    return typeof value === 'string' && isAnonymous(value) ? [] : phoneIssue(value, env.region, path, 'non è un numero di telefono valido né `anonymous`');
  });
}

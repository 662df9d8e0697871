/**
 * The checks of lead bodies that need no database (the phone), for the service on a valid body
 * and for the routes' `config.bodyIssues` on a body its schema refused (src/lib/loose.ts).
 */
import type { ActorEnvironment } from '../../core/actor.js';
import type { ValidationIssue } from '../../core/errors.js';
import { phoneIssue, record } from '../../lib/loose.js';

/** A lead's creation: a phone that is a phone number. */
export function leadBodyIssues(body: unknown, env: Pick<ActorEnvironment, 'region'>): ValidationIssue[] {
  return phoneIssue(record(body).phone, env.region, 'phone');
}

/**
 * The check of a clinic's body that needs no database: its time zone one that dates can be
 * computed in. The schema only bounds its length; a zone Intl does not know would make every
 * local date, working hour and "today" of the clinic throw. For the services on a valid body
 * and the routes' `config.bodyIssues` on a body its schema refused (src/lib/loose.ts).
 */
import type { ValidationIssue } from '../../core/errors.js';
import { record } from '../../lib/loose.js';

const TIMEZONE_ISSUE = { path: 'timezone', message: 'fuso orario IANA sconosciuto (es. Europe/Rome)' };

/** An IANA time zone this runtime computes dates in. */
function isKnownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** A clinic's creation or changes. */
export function clinicBodyIssues(body: unknown): ValidationIssue[] {
  const { timezone } = record(body);
  return typeof timezone === 'string' && timezone !== '' && !isKnownTimeZone(timezone) ? [TIMEZONE_ISSUE] : [];
}

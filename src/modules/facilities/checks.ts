/**
 * The checks of a facility's body that need no database: its working schedule in order, its
 * phone a phone number (an empty text clears it). For the services on a valid body and the
 * routes' `config.bodyIssues` on a body its schema refused (src/lib/loose.ts).
 */
import type { ActorEnvironment } from '../../core/actor.js';
import type { ValidationIssue } from '../../core/errors.js';
import { record } from '../../lib/loose.js';
import { toCanonicalPhone } from '../../lib/phone.js';
import { scheduleIssues } from './schedule.js';

const PHONE_ISSUE = { path: 'phone', message: 'non è un numero di telefono valido' };

/**
 * A facility's phone as every other phone of the API: E.164, read in the region when typed
 * without a country prefix. An empty string clears it (null); `false`: not a phone number.
 */
export function facilityPhone(phone: string | null | undefined, region: string): string | null | undefined | false {
  if (phone === undefined || phone === null) return phone;
  if (phone.trim() === '') return null;
  return toCanonicalPhone(phone, region) ?? false;
}

/** A facility's creation or changes. */
export function facilityBodyIssues(body: unknown, env: Pick<ActorEnvironment, 'region'>): ValidationIssue[] {
  const b = record(body);
  const issues = scheduleIssues(b.workingSchedule, 'workingSchedule');
  if (typeof b.phone === 'string' && facilityPhone(b.phone, env.region) === false) issues.push(PHONE_ISSUE);
  return issues;
}

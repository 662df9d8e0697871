/**
 * The checks of appointment bodies that need no database: an end after its start, and a booking
 * without a hold naming its calendar and start. For the services on a valid body and the
 * routes' `config.bodyIssues` on a body its schema refused (src/lib/loose.ts). A change that
 * moves only one end is judged against the stored other end by the service.
 */
import type { ValidationIssue } from '../../core/errors.js';
import { instant, record } from '../../lib/loose.js';

/** `end` after `start` (milliseconds); nothing when either is unknown. */
export function endAfterStart(start: number | undefined, end: number | undefined): ValidationIssue[] {
  return start === undefined || end === undefined || end > start ? [] : [{ path: 'end', message: 'deve essere successivo a start' }];
}

/**
 * A new appointment of the agenda, or changes naming both ends: the end after the start; a visit
 * entered as `completed` (an imported history) already started.
 */
export function appointmentBodyIssues(body: unknown): ValidationIssue[] {
  const b = record(body);
  const issues = endAfterStart(instant(b.start), instant(b.end));
  const start = instant(b.start);
  if (b.status === 'completed' && start !== undefined && start > Date.now())
    issues.push({ path: 'start', message: 'una visita completata deve essere già iniziata' });
  return issues;
}

/** A booking without `holdId` names its calendar and its start. */
export function bookingBodyIssues(body: unknown): ValidationIssue[] {
  const b = record(body);
  if (b.holdId) return [];
  const issues: ValidationIssue[] = [];
  if (b.calendarId === undefined) issues.push({ path: 'calendarId', message: 'obbligatorio senza holdId' });
  if (b.start === undefined) issues.push({ path: 'start', message: 'obbligatorio senza holdId' });
  return issues;
}

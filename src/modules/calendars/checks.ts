/**
 * The checks of a calendar's body that need no database: its working hours in order. For the
 * service on a valid body and the routes' `config.bodyIssues` on a body its schema refused
 * (src/lib/loose.ts).
 */
import type { ValidationIssue } from '../../core/errors.js';
import { record } from '../../lib/loose.js';
import { scheduleIssues } from '../facilities/schedule.js';

export function calendarBodyIssues(body: unknown): ValidationIssue[] {
  return scheduleIssues(record(body).workingHours, 'workingHours');
}

/**
 * The checks of a calendar's body that need no database: its working hours in order; and of an
 * availability query: a window that ends after it starts and is not too long. For the services
 * on valid input and the routes' `config.bodyIssues` / `config.queryIssues` on input its schema
 * refused (src/lib/loose.ts).
 */
import type { ValidationIssue } from '../../core/errors.js';
import { instant, record } from '../../lib/loose.js';
import { scheduleIssues } from '../facilities/index.js';

export function calendarBodyIssues(body: unknown): ValidationIssue[] {
  return scheduleIssues(record(body).workingHours, 'workingHours');
}

/** The longest availability window asked at once, in days. */
export const MAX_WINDOW_DAYS = 31;

/**
 * An availability query: a local `date` (with `partOfDay` or not) instead of `from`/`to`, never
 * with them; `partOfDay` only with a `date`; else `to` after `from` (default now) and at most
 * MAX_WINDOW_DAYS after it (default 7 days).
 */
export function availabilityQueryIssues(query: unknown, _env?: unknown, now = Date.now()): ValidationIssue[] {
  const q = record(query);
  if (q.date !== undefined || q.partOfDay !== undefined) {
    const issues: ValidationIssue[] = [];
    if (q.date === undefined) issues.push({ path: 'partOfDay', message: 'richiede date (il giorno di cui è una parte)' });
    for (const bound of ['from', 'to'] as const)
      if (q[bound] !== undefined) issues.push({ path: bound, message: 'non si usa insieme a date/partOfDay: la finestra è già il giorno indicato' });
    return issues;
  }
  // A bound the schema refused is the schema's to name: the window is not judged.
  const from = q.from === undefined ? now : instant(q.from);
  if (from === undefined) return [];
  const to = q.to === undefined ? from + 7 * 86_400_000 : instant(q.to);
  if (to === undefined) return [];
  if (to <= from) return [{ path: 'to', message: 'deve essere successivo a from' }];
  if (to - from > MAX_WINDOW_DAYS * 86_400_000) return [{ path: 'to', message: `la finestra può durare al massimo ${MAX_WINDOW_DAYS} giorni` }];
  return [];
}

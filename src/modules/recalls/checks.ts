/**
 * The checks of recall bodies that need no database: rules that name something to recall, and
 * an attempt's fields that go with its outcome (an appointment only when booked, a time in the
 * future only for a callback). For the services on a valid body and the routes'
 * `config.bodyIssues` on a body its schema refused (src/lib/loose.ts); whether the appointment
 * is the patient's is the service's, in the database.
 */
import type { ValidationIssue } from '../../core/errors.js';
import { instant, record } from '../../lib/loose.js';
import { RECALL_OUTCOMES } from './schema.js';

/** At least one category or appointment type to recall. */
export function rulesBodyIssues(body: unknown): ValidationIssue[] {
  const b = record(body);
  // Judged only when both are lists: a missing or refused one is the schema's to name.
  if (!Array.isArray(b.categories) || !Array.isArray(b.types) || b.categories.length > 0 || b.types.length > 0) return [];
  const message = 'serve almeno una categoria o un tipo di appuntamento';
  return [
    { path: 'categories', message },
    { path: 'types', message },
  ];
}

/** An attempt: `appointmentId` with `booked` and only then, `callbackAt` in the future with `callback` and only then. */
export function attemptBodyIssues(body: unknown, _env?: unknown, now = Date.now()): ValidationIssue[] {
  const b = record(body);
  const outcome = b.outcome;
  if (typeof outcome !== 'string' || !(RECALL_OUTCOMES as readonly string[]).includes(outcome)) return [];
  const issues: ValidationIssue[] = [];
  if (outcome === 'booked') {
    if (!b.appointmentId) issues.push({ path: 'appointmentId', message: 'obbligatorio con outcome booked' });
  } else if (b.appointmentId) issues.push({ path: 'appointmentId', message: 'solo con outcome booked' });
  if (outcome === 'callback') {
    if (!b.callbackAt) issues.push({ path: 'callbackAt', message: 'obbligatorio con outcome callback' });
    else {
      const at = instant(b.callbackAt);
      if (at !== undefined && at <= now) issues.push({ path: 'callbackAt', message: 'deve essere nel futuro' });
    }
  } else if (b.callbackAt) issues.push({ path: 'callbackAt', message: 'solo con outcome callback' });
  return issues;
}

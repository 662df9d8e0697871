/**
 * The checks of confirmation bodies that need no database: each step of the rules is one of
 * its two forms (`hoursBefore` alone, or `daysBefore` with `at`). For the service on a valid
 * body and the route's `config.bodyIssues` on a body its schema refused (src/lib/loose.ts).
 */
import type { ValidationIssue } from '../../core/errors.js';
import { list, record } from '../../lib/loose.js';

export function rulesBodyIssues(body: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  list(record(body).steps).forEach((raw, i) => {
    const s = record(raw);
    const [hours, days, at] = [s.hoursBefore !== undefined, s.daysBefore !== undefined, s.at !== undefined];
    if (hours && (days || at)) issues.push({ path: `steps.${i}`, message: 'hoursBefore da solo, oppure daysBefore con at' });
    else if (!hours && !days && !at) issues.push({ path: `steps.${i}`, message: 'serve hoursBefore, oppure daysBefore con at' });
    else if (days && !at) issues.push({ path: `steps.${i}.at`, message: 'obbligatorio con daysBefore' });
    else if (at && !days) issues.push({ path: `steps.${i}.daysBefore`, message: 'obbligatorio con at' });
  });
  return issues;
}

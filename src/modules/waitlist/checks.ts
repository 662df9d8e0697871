/**
 * The checks of a waitlist entry's body that need no database: exactly one person (a patient or
 * a lead), a window that ends in the future and after it starts. For the service on a valid body
 * and the route's `config.bodyIssues` on a body its schema refused (src/lib/loose.ts).
 */
import type { ValidationIssue } from '../../core/errors.js';
import { instant, record } from '../../lib/loose.js';

export function entryBodyIssues(body: unknown, _env?: unknown, now = Date.now()): ValidationIssue[] {
  const b = record(body);
  const issues: ValidationIssue[] = [];
  if ((b.patientId === undefined) === (b.leadId === undefined)) {
    const message = 'serve esattamente uno tra patientId e leadId';
    issues.push({ path: 'patientId', message }, { path: 'leadId', message });
  }
  const latest = instant(b.latest);
  // Without earliest the window opens now; an earliest the schema refused is not compared.
  const earliest = b.earliest === undefined ? now : instant(b.earliest);
  if (latest !== undefined && latest <= now) issues.push({ path: 'latest', message: 'deve essere nel futuro' });
  else if (latest !== undefined && earliest !== undefined && latest <= earliest) issues.push({ path: 'latest', message: 'deve essere successivo a earliest' });
  return issues;
}

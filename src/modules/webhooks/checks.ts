/**
 * The checks of webhook bodies that need no database: a destination's address the deployment
 * may call, a replay's range within the events kept. For the services on a valid body and the
 * routes' `config.bodyIssues` on a body its schema refused (src/lib/loose.ts).
 */
import type { ValidationIssue } from '../../core/errors.js';
import { instant, record } from '../../lib/loose.js';
import { checkEndpointUrl, type AddressPolicy } from './address.js';

const REPLAY_WINDOW_DAYS = 30;

/** A destination's creation or changes, under the deployment's address policy. */
export function endpointBodyIssues(policy: AddressPolicy): (body: unknown) => ValidationIssue[] {
  return (body) => {
    const url = record(body).url;
    return typeof url === 'string' ? checkEndpointUrl(url, policy) : [];
  };
}

/** A replay: `from` within the kept events, `to` after it. */
export function replayBodyIssues(body: unknown, _env?: unknown, now = Date.now()): ValidationIssue[] {
  const b = record(body);
  const from = instant(b.from);
  const to = instant(b.to);
  const issues: ValidationIssue[] = [];
  if (from !== undefined && from < now - REPLAY_WINDOW_DAYS * 86_400_000) {
    issues.push({ path: 'from', message: `deve essere negli ultimi ${REPLAY_WINDOW_DAYS} giorni (gli eventi conservati)` });
  }
  if (from !== undefined && to !== undefined && to <= from) issues.push({ path: 'to', message: 'deve essere dopo from' });
  return issues;
}

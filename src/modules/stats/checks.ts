/**
 * The checks of an agenda statistics query that need no database: `to` after `from`, at most
 * MAX_RANGE_DAYS later. For the service on a valid query and the route's `config.queryIssues` on
 * one its schema refused (src/lib/loose.ts).
 */
import type { ValidationIssue } from '../../core/errors.js';
import { record } from '../../lib/loose.js';
import { MAX_RANGE_DAYS } from './schema.js';

const DAY_MS = 86_400_000;

/** A `YYYY-MM-DD` as a day number (UTC midnight); undefined when absent or not a calendar date. */
function day(v: unknown): number | undefined {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return undefined;
  const ms = Date.parse(`${v}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== v ? undefined : ms / DAY_MS;
}

export function agendaStatsQueryIssues(query: unknown): ValidationIssue[] {
  const q = record(query);
  // A bound the schema refused is the schema's to name: the range is not judged.
  const from = day(q.from);
  const to = day(q.to);
  if (from === undefined || to === undefined) return [];
  if (to <= from) return [{ path: 'to', message: 'deve essere successivo a from' }];
  if (to - from > MAX_RANGE_DAYS) return [{ path: 'to', message: `l’intervallo può durare al massimo ${MAX_RANGE_DAYS} giorni` }];
  return [];
}

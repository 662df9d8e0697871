/** `events.skipped` (spec 6.4): recorded instead of events that could not be born. */
import type { Transaction } from '../db/transaction.js';
import { EVENT_SCOPES, type EventType, type SkippedData } from './catalogue.js';
import { insertEvent, type RecordedEvent } from './record.js';

type SkippedReason = { reason: 'bulk_import'; count: number } | { reason: 'no_active_key'; from: string; to: string } | { reason: 'error' };

/** Bulk operations record one of these when they create more than this many rows of one type. */
export const BULK_EVENT_THRESHOLD = 50;

export async function recordSkipped(
  trx: Transaction,
  clinicId: string,
  type: EventType,
  why: SkippedReason,
  facilityId: string | null = null,
): Promise<RecordedEvent> {
  const scope = EVENT_SCOPES[type];
  const data: SkippedData = { type, scope, ...why };
  return insertEvent(trx, clinicId, 'events.skipped', scope, facilityId, data);
}

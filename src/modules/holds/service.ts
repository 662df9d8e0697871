/**
 * Slot holds (README.md beside this file): a key keeps a free slot for a caller while the
 * agent confirms it, so nobody else can book or hold that time until the hold is booked,
 * released or lapses. Taking and releasing a hold are src/modules/scheduling/holds.ts.
 */
import type { Db } from '../../db/transaction.js';
import { localReading } from '../../lib/local-reading.js';
import type { HoldView } from './schema.js';
import { deleteLapsedHolds, type HoldRow } from './store.js';

/** A hold as the API answers it, its start read in the clinic's zone `tz`. */
export function holdView(row: HoldRow, tz: string): HoldView {
  return {
    id: row.id,
    calendarId: row.calendar_id,
    start: row.start_at.toISOString(),
    end: row.end_at.toISOString(),
    doctorId: row.doctor_id,
    chairId: row.chair_id,
    holderRef: row.holder_ref,
    expiresAt: row.expires_at.toISOString(),
    ...localReading(row.start_at, tz),
  };
}

/** Deletes holds that lapsed over a day ago (a periodic job); a lapsed hold blocks nothing meanwhile. */
export async function purgeLapsedHolds(db: Db): Promise<number> {
  return deleteLapsedHolds(db);
}

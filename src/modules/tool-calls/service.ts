/**
 * The agent tools' call ledger (README.md beside this file): what a writing tool call needs to
 * know whether it repeats the call's last write (a retry: replayed) or is a new attempt.
 */
import type { Db } from '../../db/transaction.js';
import { deleteOldToolWrites, lastToolWrite, recordToolWrite, type ToolWrite } from './store.js';

export type { ToolWrite } from './store.js';

/** The ledger of one clinic's calls. */
export interface ToolCallLedger {
  lastWrite(callId: string): Promise<ToolWrite | null>;
  recordWrite(callId: string, write: ToolWrite): Promise<void>;
}

export function toolCallLedger(db: Db, clinicId: string): ToolCallLedger {
  return {
    lastWrite: (callId) => lastToolWrite(db, clinicId, callId),
    recordWrite: (callId, write) => recordToolWrite(db, clinicId, callId, write),
  };
}

/** Retention (the idempotency keys' job): rows older than the keys they name. */
export async function purgeToolCallWrites(db: Db): Promise<number> {
  return deleteOldToolWrites(db);
}

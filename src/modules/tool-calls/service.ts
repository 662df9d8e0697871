/**
 * The agent tools' call ledger (README.md beside this file): what a writing tool call needs to
 * know whether it repeats the call's last write (a retry: replayed) or is a new attempt. A write
 * whose operation takes an Idempotency-Key is its key's row in the idempotency store; one whose
 * operation takes none (a cancel, a release) is recorded here once it succeeded.
 */
import type { Db } from '../../db/transaction.js';
import { bodyHashOf, TOOL_KEY_PREFIX } from '../../db/idempotency.js';
import { deleteOldToolWrites, lastToolWriteKey, recordToolWrite, type ToolWrite } from './store.js';

export type { ToolWrite } from './store.js';

/** A call's part of its keys: a platform's call id may hold any character and any length; this is hex, 32 of them. */
function callPart(callId: string): string {
  return bodyHashOf(callId).slice(0, 32);
}

/**
 * The Idempotency-Key of a writing tool call: `tool:<call>:<tool>:<arguments' hash>:<chain>`, the
 * chain a hash of the key of the call's write before it (or of none). Its parts are hex and a
 * tool's name, so only its separators are colons, and it stays under the store's 255 characters.
 */
export function toolWriteKey(callId: string, tool: string, argsHash: string, after: string | null): string {
  return `${TOOL_KEY_PREFIX}${callPart(callId)}:${tool}:${argsHash}:${bodyHashOf({ after }).slice(0, 32)}`;
}

/** The write a key of toolWriteKey's form stands for. */
function writeOf(key: string): ToolWrite | null {
  const [, , tool, argsHash] = key.split(':');
  return tool && argsHash ? { tool, argsHash, idempotencyKey: key } : null;
}

/** The ledger of one clinic's calls. */
export interface ToolCallLedger {
  lastWrite(callId: string): Promise<ToolWrite | null>;
  /** Records a successful write whose operation takes no Idempotency-Key (a keyed one is its key's row). */
  recordWrite(callId: string, write: ToolWrite): Promise<void>;
}

export function toolCallLedger(db: Db, clinicId: string): ToolCallLedger {
  return {
    lastWrite: async (callId) => {
      const key = await lastToolWriteKey(db, clinicId, callId, callPart(callId));
      return key === null ? null : writeOf(key);
    },
    recordWrite: (callId, write) => recordToolWrite(db, clinicId, callId, write),
  };
}

/** Retention (the idempotency keys' job): rows older than the keys they name. */
export async function purgeToolCallWrites(db: Db): Promise<number> {
  return deleteOldToolWrites(db);
}

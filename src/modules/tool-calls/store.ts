/** The call ledger's SQL (README.md beside this file): one row per (clinic, call id). */
import { sql } from 'kysely';
import type { Db } from '../../db/transaction.js';
import { RETENTION_HOURS } from '../../db/idempotency.js';

/** A writing tool call that succeeded: its tool, the hash of its canonical arguments, the Idempotency-Key it was sent with. */
export interface ToolWrite {
  tool: string;
  argsHash: string;
  idempotencyKey: string;
}

/** The call's last successful writing tool call, or null (none yet, or older than the idempotency keys). */
export async function lastToolWrite(db: Db, clinicId: string, callId: string): Promise<ToolWrite | null> {
  const row = await db
    .selectFrom('tool_call_writes')
    .select(['tool', 'args_hash', 'idempotency_key'])
    .where('clinic_id', '=', clinicId)
    .where('call_id', '=', callId)
    .where('written_at', '>=', sql<Date>`now() - make_interval(hours => ${RETENTION_HOURS})`)
    .executeTakeFirst();
  return row ? { tool: row.tool, argsHash: row.args_hash, idempotencyKey: row.idempotency_key } : null;
}

/** Records the call's last successful writing tool call (the previous one is forgotten). */
export async function recordToolWrite(db: Db, clinicId: string, callId: string, write: ToolWrite): Promise<void> {
  const values = { tool: write.tool, args_hash: write.argsHash, idempotency_key: write.idempotencyKey, written_at: sql<Date>`now()` };
  await db
    .insertInto('tool_call_writes')
    .values({ clinic_id: clinicId, call_id: callId, ...values })
    .onConflict((oc) => oc.columns(['clinic_id', 'call_id']).doUpdateSet(values))
    .execute();
}

/** Deletes the rows older than the idempotency keys' retention; answers how many. */
export async function deleteOldToolWrites(db: Db): Promise<number> {
  const result = await db
    .deleteFrom('tool_call_writes')
    .where('written_at', '<', sql<Date>`now() - make_interval(hours => ${RETENTION_HOURS})`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

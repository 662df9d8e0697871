/**
 * The call ledger's SQL (README.md beside this file): a call's writes are its tool keys in the
 * idempotency store (`idempotency_keys`, the operations that take a key) and its row in
 * `tool_call_writes` (the last write whose operation takes none).
 */
import { sql } from 'kysely';
import type { Db } from '../../db/transaction.js';
import { newestToolKeyQuery, RETENTION_HOURS } from '../../db/idempotency.js';

/** A row is kept as long as the idempotency keys it names. */
const keptSince = () => sql<Date>`now() - make_interval(hours => ${RETENTION_HOURS})`;

/** A writing tool call that succeeded: its tool, the hash of its canonical arguments, the Idempotency-Key it was sent with. */
export interface ToolWrite {
  tool: string;
  argsHash: string;
  idempotencyKey: string;
}

/**
 * The key of the call's last successful writing tool call, or null (none yet, or older than the
 * idempotency keys): the newer of its row here and its newest key that counts as a write in the
 * idempotency store (`newestToolKeyQuery`, whose rules those are). `callPart` is the call's part
 * of its keys (`tool:<callPart>:…`). One statement: one round trip.
 */
export async function lastToolWriteKey(db: Db, clinicId: string, callId: string, callPart: string): Promise<string | null> {
  const { rows } = await sql<{ idempotency_key: string }>`
    SELECT idempotency_key FROM (
      SELECT idempotency_key, written_at AS at FROM tool_call_writes
        WHERE clinic_id = ${clinicId} AND call_id = ${callId} AND written_at >= ${keptSince()}
      UNION ALL
      (${newestToolKeyQuery(db, clinicId, callPart)})
    ) AS writes ORDER BY at DESC LIMIT 1`.execute(db);
  return rows[0]?.idempotency_key ?? null;
}

/** Records the call's last successful writing tool call whose operation takes no key (the previous one is forgotten). */
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
  const result = await db.deleteFrom('tool_call_writes').where('written_at', '<', keptSince()).executeTakeFirst();
  return Number(result.numDeletedRows);
}

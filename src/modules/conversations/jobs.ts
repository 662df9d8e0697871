/**
 * Periodic job of the chat: a bot pause whose time has passed is switched back to `attivo`
 * in the database. Reads already show such a pause as `attivo` (spec 3.1); this keeps the
 * stored state, `updatedAt` and the ETag in step, so `updatedSince` syncs see the change.
 * A conditional UPDATE: running it in several processes at once changes each row once.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Job } from '../../jobs/scheduler.js';

export async function expireBotPauses(db: Kysely<DB>): Promise<number> {
  const result = await db
    .updateTable('conversations')
    .set({ bot_state: 'attivo', bot_paused_until: null, updated_at: sql`now()`, version: sql`version + 1` })
    .where('bot_state', '=', 'in_pausa')
    .where('bot_paused_until', '<=', sql<Date>`now()`)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export function conversationJobs(): Job[] {
  return [{ name: 'expire-bot-pauses', everyMs: 30_000, run: (ctx) => expireBotPauses(ctx.db) }];
}

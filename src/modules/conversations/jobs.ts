/**
 * Periodic job of the chat: a bot pause whose time has passed is switched back to `attivo`
 * in the database. Reads already show such a pause as `attivo` (spec 3.1); this keeps the
 * stored state, `updatedAt` and the ETag in step, so `updatedSince` syncs see the change.
 * A conditional UPDATE: running it in several processes at once changes each row once.
 */
import type { Db } from '../../db/transaction.js';
import type { Job } from '../../jobs/scheduler.js';
import * as store from './store.js';

export async function expireBotPauses(db: Db): Promise<number> {
  return store.expireBotPauses(db);
}

export function conversationJobs(): Job[] {
  return [{ name: 'expire-bot-pauses', everyMs: 30_000, run: (ctx) => expireBotPauses(ctx.db) }];
}

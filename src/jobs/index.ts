/** Every periodic job of the service, each owned by its module. */
import { purgeIdempotencyKeys } from '../db/idempotency.js';
import { billingJobs } from '../modules/billing/index.js';
import { confirmationJobs } from '../modules/confirmations/index.js';
import { documentJobs } from '../modules/documents/index.js';
import { conversationJobs } from '../modules/conversations/index.js';
import { webhookJobs } from '../modules/webhooks/index.js';
import { purgeLapsedHolds } from '../modules/holds/index.js';
import { purgeToolCallWrites } from '../modules/tool-calls/index.js';
import { expireOffers } from '../modules/scheduling/index.js';
import { refreshRecallWorklists } from '../modules/recalls/index.js';
import { partitionJobs } from './partitions.js';
import type { Job } from './scheduler.js';

export function allJobs(): Job[] {
  return [
    // The agent tools' call ledger names idempotency keys: its rows go with them.
    { name: 'purge-idempotency-keys', everyMs: 10 * 60_000, run: async (ctx) => (await purgeIdempotencyKeys(ctx.db)) + (await purgeToolCallWrites(ctx.db)) },
    // A lapsed hold blocks nothing (every read filters on expires_at): this only keeps the table small.
    { name: 'purge-lapsed-holds', everyMs: 60 * 60_000, run: (ctx) => purgeLapsedHolds(ctx.db) },
    // A lapsed offer keeps its slot until this passes it to the next waitlist entry.
    { name: 'expire-waitlist-offers', everyMs: 30_000, run: (ctx) => expireOffers(ctx.db) },
    // The recall worklist from completed visits; the list corrects at read time what changed since.
    { name: 'refresh-recall-worklists', everyMs: 60 * 60_000, run: (ctx) => refreshRecallWorklists(ctx.db) },
    ...billingJobs(),
    ...confirmationJobs(),
    ...conversationJobs(),
    ...documentJobs(),
    ...webhookJobs(),
    ...partitionJobs(),
  ];
}

/** The database as Kysely sees it: one interface per module, joined here. */
import type { AgendaTables } from './tables/agenda.js';
import type { ConfirmationTables } from './tables/confirmations.js';
import type { CoreTables } from './tables/core.js';
import type { DocumentsTables } from './tables/documents.js';
import type { PeopleTables } from './tables/people.js';
import type { RecallTables } from './tables/recalls.js';
import type { ToolCallTables } from './tables/tool-calls.js';
import type { WaitlistTables } from './tables/waitlist.js';
import type { WebhooksTables } from './tables/webhooks.js';

export interface DB
  extends CoreTables, PeopleTables, AgendaTables, WebhooksTables, DocumentsTables, WaitlistTables, RecallTables, ConfirmationTables, ToolCallTables {}

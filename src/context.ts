/** What services need from the running process: the database, the configuration, a clock. */
import type { Kysely } from 'kysely';
import type { Config } from './config.js';
import type { ActorEnvironment } from './core/actor.js';
import type { ChangeFeed } from './db/change-feed.js';
import type { Database } from './db/database.js';
import type { ReadRouter } from './db/replicas.js';
import type { DB } from './db/schema.js';
import type { AccessLogWriter } from './modules/access-log/writer.js';
import type { Authenticator } from './modules/auth/authenticate.js';
import type { DocumentsRuntime } from './modules/documents/runtime.js';

export interface AppContext {
  config: Config;
  database: Database;
  db: Kysely<DB>;
  /** Where a lag-tolerant read runs: a replica that holds the reader's writes, else `db` (src/db/replicas.ts). */
  reads: ReadRouter;
  authenticator: Authenticator;
  /** Changes of cached tables, as they commit (for the read caches). */
  changes: ChangeFeed;
  /** Writes access-log entries, group-committed; a read awaits `record` before answering. */
  accessLog: AccessLogWriter;
  /** Secret for signing cursors; the same in every process (stored in the database). */
  cursorSecret: string;
  /** Documents: the storage driver and the malware scanner (src/modules/documents/runtime.ts). */
  documents: DocumentsRuntime;
}

/** What every actor of this process carries besides its key (src/core/actor.ts). */
export function actorEnvironment(ctx: Pick<AppContext, 'config' | 'cursorSecret'>): ActorEnvironment {
  return { region: ctx.config.defaultPhoneRegion, cursorSecret: ctx.cursorSecret };
}

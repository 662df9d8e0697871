/**
 * What changed, for the read caches (src/db/read-cache.ts): the trigger of
 * 0040_change_feed.sql NOTIFYs `table:clinicId` on `dcm_changes` at the commit of any change
 * to a cached table, whoever makes it; every process listens here.
 *
 * A cache asks for a token before it reads the database and keeps what it read only if the
 * token is still current afterwards; a change of that table and clinic replaces the token, so a
 * value read before a change is never served after the change's notification arrived
 * (PostgreSQL delivers it within about a millisecond of the commit).
 *
 * While the listening connection is down, notifications are missed: the feed is then not live,
 * `token` answers null and the caches read the database every time. It listens again with
 * growing waits (up to 5 s); once back, every token is new, so nothing cached before is served.
 */
import { DatabaseClosedError, type Database } from './database.js';

export const CHANGES_CHANNEL = 'dcm_changes';
const RETRY_MS = [100, 250, 500, 1_000, 2_000, 5_000];

/** Identity of a (table, clinic) state: equal tokens mean no change in between. */
export type ChangeToken = object;

export class ChangeFeed {
  readonly #database: Database;
  #tokens = new Map<string, ChangeToken>();
  #live = false;
  #closed = false;
  #unlisten: (() => Promise<void>) | null = null;
  #retry: NodeJS.Timeout | null = null;
  #failures = 0;
  /** Notifications received (tests, metrics). */
  received = 0;

  private constructor(database: Database) {
    this.#database = database;
  }

  /** Starts listening; resolves once live or, if the first attempt fails, not live and retrying. */
  static async start(database: Database): Promise<ChangeFeed> {
    const feed = new ChangeFeed(database);
    await feed.#listen();
    return feed;
  }

  get live(): boolean {
    return this.#live;
  }

  /** The current token of a clinic's table, or null when changes could be missed (do not cache). */
  token(table: string, clinicId: string): ChangeToken | null {
    if (!this.#live) return null;
    const key = `${table}:${clinicId}`;
    let token = this.#tokens.get(key);
    if (!token) {
      token = {};
      this.#tokens.set(key, token);
    }
    return token;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#live = false;
    if (this.#retry) clearTimeout(this.#retry);
    await this.#unlisten?.();
  }

  #changed(payload: string): void {
    this.received++;
    const at = payload.lastIndexOf(':');
    const table = payload.slice(0, at);
    const clinicId = payload.slice(at + 1);
    if (clinicId === '*') {
      for (const key of [...this.#tokens.keys()]) if (key.startsWith(`${table}:`)) this.#tokens.delete(key);
    } else {
      // A new token: values kept under the old one are stale.
      this.#tokens.delete(`${table}:${clinicId}`);
    }
  }

  async #listen(): Promise<void> {
    try {
      this.#unlisten = await this.#database.listen(CHANGES_CHANNEL, (payload) => this.#changed(payload), () => this.#lost());
      if (this.#closed) {
        await this.#unlisten();
        return;
      }
      // Whatever changed while not listening is unknown: start from new tokens.
      this.#tokens = new Map();
      this.#failures = 0;
      this.#live = true;
    } catch (error) {
      if (error instanceof DatabaseClosedError) this.#closed = true;
      else this.#scheduleRetry();
    }
  }

  #lost(): void {
    this.#live = false;
    this.#unlisten = null;
    this.#scheduleRetry();
  }

  #scheduleRetry(): void {
    if (this.#closed) return;
    const wait = RETRY_MS[Math.min(this.#failures++, RETRY_MS.length - 1)];
    this.#retry = setTimeout(() => void this.#listen(), wait);
    this.#retry.unref();
  }
}

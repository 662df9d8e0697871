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
 * growing waits (src/db/listener.ts); once back, every token is new, so nothing cached before
 * is served.
 */
import type { Database } from './database.js';
import { keepListening, type Listener } from './listener.js';

const CHANGES_CHANNEL = 'dcm_changes';

/** Identity of a (table, clinic) state: equal tokens mean no change in between. */
export type ChangeToken = object;

/**
 * The (table, clinic) tokens a process keeps: one per clinic a cached read touched, per table.
 * Past the bound they are all dropped: a token dropped is only a new token the next time, a miss
 * of the caches that held values under it. 100,000 (about 100 bytes each) covers 10,000 clinics
 * on every cached table; an LRU would cost each start its arrays of that size (authenticate.ts).
 */
const MAX_TOKENS = 100_000;

export class ChangeFeed {
  #tokens = new Map<string, ChangeToken>();
  /** One token per table, replaced by a change of any clinic's row (rarely changed tables: clinics). */
  #tableTokens = new Map<string, ChangeToken>();
  #live = false;
  #listener: Listener | null = null;

  private constructor() {}

  /** Starts listening; resolves once live or, if the first attempt fails, not live and retrying. */
  static async start(database: Database): Promise<ChangeFeed> {
    const feed = new ChangeFeed();
    feed.#listener = await keepListening(database, CHANGES_CHANNEL, {
      onMessage: (payload) => feed.#changed(payload),
      onDown: () => (feed.#live = false),
      onUp: () => feed.#goLive(),
    });
    if (feed.#listener.up) feed.#goLive();
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
      if (this.#tokens.size >= MAX_TOKENS) this.#tokens.clear();
      this.#tokens.set(key, token);
    }
    return token;
  }

  /**
   * The current token of a whole table (any clinic), or null when changes could be missed.
   * For caches keyed by something other than the clinic (the key lookups of authenticate.ts).
   */
  tableToken(table: string): ChangeToken | null {
    if (!this.#live) return null;
    let token = this.#tableTokens.get(table);
    if (!token) {
      token = {};
      this.#tableTokens.set(table, token);
    }
    return token;
  }

  async close(): Promise<void> {
    this.#live = false;
    await this.#listener?.stop();
  }

  /** Whatever changed while not listening is unknown: start from new tokens. */
  #goLive(): void {
    this.#tokens = new Map();
    this.#tableTokens = new Map();
    this.#live = true;
  }

  #changed(payload: string): void {
    const at = payload.lastIndexOf(':');
    const table = payload.slice(0, at);
    const clinicId = payload.slice(at + 1);
    this.#tableTokens.delete(table);
    if (clinicId === '*') {
      for (const key of [...this.#tokens.keys()]) if (key.startsWith(`${table}:`)) this.#tokens.delete(key);
    } else {
      // A new token: values kept under the old one are stale.
      this.#tokens.delete(`${table}:${clinicId}`);
    }
  }
}

/**
 * A bounded per-process cache of values read from one table, kept per clinic and dropped by
 * the change feed (src/db/change-feed.ts) when any row of that table of that clinic changes.
 * Used only on read paths where skipping the database is what makes the route fast; a value
 * is never served once the notification of a later commit has arrived.
 */
import { LRUCache } from 'lru-cache';
import type { ChangeFeed } from './change-feed.js';

interface Entry<V> {
  token: object;
  value: V;
}

export class ReadCache<V> {
  readonly #feed: ChangeFeed;
  readonly #table: string;
  /** A value is kept with the change token it was read under; the least recently used go first. */
  readonly #entries: LRUCache<string, Entry<V>>;

  constructor(feed: ChangeFeed, table: string, maxEntries: number) {
    this.#feed = feed;
    this.#table = table;
    this.#entries = new LRUCache({ max: maxEntries });
  }

  /** The value of `key` in the clinic: cached if still current, else `load()`ed (and kept). Errors are not kept. */
  async get(clinicId: string, key: string, load: () => Promise<V>): Promise<V> {
    const token = this.#feed.token(this.#table, clinicId);
    if (token === null) return load();
    const entryKey = `${clinicId}\u0000${key}`;
    const entry = this.#entries.get(entryKey);
    if (entry?.token === token) return entry.value;
    const value = await load();
    // Kept only if nothing changed while it was read.
    if (this.#feed.token(this.#table, clinicId) === token) this.#entries.set(entryKey, { token, value });
    else this.#entries.delete(entryKey);
    return value;
  }
}

/**
 * A bounded per-process cache of values read from one table, kept per clinic and dropped by
 * the change feed (src/db/change-feed.ts) when any row of that table of that clinic changes.
 * Used only on read paths where skipping the database is what makes the route fast; a value
 * is never served once the notification of a later commit has arrived.
 */
import type { ChangeFeed } from './change-feed.js';

interface Entry<V> {
  token: object;
  value: V;
}

export class ReadCache<V> {
  readonly #feed: ChangeFeed;
  readonly #table: string;
  readonly #maxEntries: number;
  /** In least-recently-used order (a Map iterates in insertion order). */
  readonly #entries = new Map<string, Entry<V>>();

  constructor(feed: ChangeFeed, table: string, maxEntries: number) {
    this.#feed = feed;
    this.#table = table;
    this.#maxEntries = maxEntries;
  }

  /** The value of `key` in the clinic: cached if still current, else `load()`ed (and kept). Errors are not kept. */
  async get(clinicId: string, key: string, load: () => Promise<V>): Promise<V> {
    const token = this.#feed.token(this.#table, clinicId);
    if (token === null) return load();
    const entryKey = `${clinicId}\u0000${key}`;
    const entry = this.#entries.get(entryKey);
    if (entry) {
      this.#entries.delete(entryKey);
      if (entry.token === token) {
        this.#entries.set(entryKey, entry);
        return entry.value;
      }
    }
    const value = await load();
    // Kept only if nothing changed while it was read.
    if (this.#feed.token(this.#table, clinicId) === token) {
      this.#entries.set(entryKey, { token, value });
      if (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    }
    return value;
  }
}

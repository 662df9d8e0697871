/**
 * The lists of resources the access log names (table access_log_resources, migration 0050).
 * Each distinct list is stored once: its id is derived from its content, so a page read again
 * names the row stored at its first read.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/**
 * The id of a list: the first 128 bits of SHA-256 over `clinic/type/id,id,...`, as a UUID.
 * The same value as the SQL function access_log_resources_id (which converted the rows written
 * before the table existed). Resource ids are written in PostgreSQL's text form (lower case).
 */
export function resourcesIdOf(clinicId: string, resourceType: string, resourceIds: readonly string[]): string {
  const hex = createHash('sha256')
    .update(`${clinicId.toLowerCase()}/${resourceType}/${resourceIds.join(',').toLowerCase()}`)
    .digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * `resourcesIdOf`, remembered per array: a page served from the read cache hands the writer
 * the same array of ids on every read, and hashing its 50 ids was a tenth of the server's
 * work on that route. Kept weakly, so an array dropped by the cache is forgotten here too.
 */
export class ResourcesIds {
  readonly #byArray = new WeakMap<readonly string[], { clinicId: string; resourceType: string; id: string }>();

  of(clinicId: string, resourceType: string, resourceIds: readonly string[]): string {
    const known = this.#byArray.get(resourceIds);
    if (known && known.clinicId === clinicId && known.resourceType === resourceType) return known.id;
    const id = resourcesIdOf(clinicId, resourceType, resourceIds);
    this.#byArray.set(resourceIds, { clinicId, resourceType, id });
    return id;
  }
}

/**
 * The ids of the lists this process knows to be stored (committed), least recently used
 * first, so a list read again needs no write of its own. Bounded: a forgotten list is only
 * written again (`ON CONFLICT DO NOTHING`).
 */
export class StoredLists {
  readonly #ids: LRUCache<string, true>;

  constructor(maxEntries = 10_000) {
    this.#ids = new LRUCache({ max: maxEntries });
  }

  has(id: string): boolean {
    return this.#ids.has(id);
  }

  /** Remembers (or refreshes) lists just committed. */
  add(id: string): void {
    this.#ids.set(id, true);
  }

  clear(): void {
    this.#ids.clear();
  }
}

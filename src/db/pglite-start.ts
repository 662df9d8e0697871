/**
 * The embedded database's start on its own, with no Kysely or `pg` behind it: src/main.ts
 * calls it first, so PGlite loads and compiles its WebAssembly (partly off the main thread)
 * while the rest of the service's modules load; src/db/database.ts wraps what it started.
 * PGlite and its extensions are loaded only by a process that opens the embedded database: a
 * process on PostgreSQL does not hold them (tens of MiB of resident memory it would never use).
 */
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { lockDataFolder } from './data-folder-lock.js';

// Numbers come back as numbers and dates as 'YYYY-MM-DD' strings on both engines.
export const INT8 = 20;
export const NUMERIC = 1700;
export const DATE = 1082;
export const toNumber = (value: string) => Number(value);
export const asIs = (value: string) => value;

export interface StartedPGlite {
  pglite: PGlite;
  /** Releases DATA_DIR's lock (after closing). */
  releaseLock(): void;
}

async function loadPGlite() {
  const [{ PGlite }, { btree_gist }, { fuzzystrmatch }, { pg_trgm }, { unaccent }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/contrib/btree_gist'),
    import('@electric-sql/pglite/contrib/fuzzystrmatch'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
    import('@electric-sql/pglite/contrib/unaccent'),
  ]);
  return { PGlite, extensions: { pg_trgm, unaccent, fuzzystrmatch, btree_gist } };
}

/** Locks `dataDir` (null: in memory, no lock) and opens PGlite in it. */
export async function startPGlite(dataDir: string | null, snapshot?: Blob): Promise<StartedPGlite> {
  const releaseLock = dataDir ? lockDataFolder(dataDir) : () => {};
  try {
    const { PGlite, extensions } = await loadPGlite();
    const pglite = await PGlite.create({
      dataDir: dataDir ? path.join(dataDir, 'pgdata') : undefined,
      extensions,
      loadDataDir: snapshot,
      parsers: { [INT8]: toNumber, [NUMERIC]: toNumber, [DATE]: asIs },
    });
    return { pglite, releaseLock };
  } catch (error) {
    releaseLock();
    throw error;
  }
}

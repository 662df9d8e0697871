/**
 * Concurrent starts on PostgreSQL apply each migration once: the migrations' lock is a
 * session-level advisory lock held by a connection of its own (DATABASE_DIRECT_URL when set,
 * so that it holds behind a pooler in transaction mode too: docs/operations.md).
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { dedicatedDatabase } from '../helpers/databases.js';
import { ENGINE } from '../helpers/server.js';

describe.skipIf(ENGINE === 'pglite')('the migrations’ lock', () => {
  it('lets two processes starting at once on an empty database apply every migration exactly once, and is released', async () => {
    const database = await dedicatedDatabase(process.env.DATABASE_URL!, `dcm_t_${process.env.DCM_TEST_RUN}`);
    const opened = await Promise.all([1, 2].map(() => openDatabase({ databaseUrl: database.url, directUrl: database.url, dataDir: null, poolMax: 2 })));
    try {
      const [a, b] = await Promise.all(opened.map((d) => migrate(d)));
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM schema_migrations`.execute(opened[0]!.db);
      expect(a!.length + b!.length).toBe(rows[0]!.n);
      expect(rows[0]!.n).toBeGreaterThan(20);
      expect([...a!, ...b!].sort()).toEqual([...new Set([...a!, ...b!])].sort());
      // Released: a third run takes the lock, finds nothing to do, and returns.
      expect(await migrate(opened[0]!)).toEqual([]);
    } finally {
      await Promise.all(opened.map((d) => d.close()));
      await database.drop();
    }
  }, 120_000);
});

/**
 * The PostgreSQL pool keeps its connections (src/db/database.ts): a new backend's first name
 * search costs tens of milliseconds, so connections a burst opened must still be there, warm,
 * for the next burst, however long the quiet between them (pg-pool's default closed them after
 * 10 s idle).
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { ENGINE } from '../helpers/server.js';

describe.skipIf(ENGINE !== 'postgres')('the PostgreSQL pool', () => {
  it('serves a burst after 11 s of quiet on the backends of the burst before', async () => {
    const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL!, dataDir: null, poolMax: 3 });
    try {
      // Three statements at once hold three connections: the pool's three backends.
      const burst = async () =>
        new Set(
          await Promise.all(
            [1, 2, 3].map(async () => (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid, pg_sleep(0.05)`.execute(database.db)).rows[0]!.pid),
          ),
        );
      const first = await burst();
      expect(first.size).toBe(3);
      await new Promise((r) => setTimeout(r, 11_000));
      expect(await burst()).toEqual(first);
    } finally {
      await database.close();
    }
  }, 30_000);
});

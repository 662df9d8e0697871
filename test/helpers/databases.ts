/**
 * A PostgreSQL database of its own, for a test file, the scale-out run or a benchmark:
 * created empty (or from a template) next to DATABASE_URL's, dropped by `drop()`.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/database.js';

async function admin(baseUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

export async function dedicatedDatabase(baseUrl: string, prefix: string, template?: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  // Concurrent CREATE DATABASE from one template can collide ("source database is being
  // accessed by other users"): retry briefly.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin(baseUrl, `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
      break;
    } catch (error) {
      if (!template || attempt > 20) throw error;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(baseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * An empty database of a test file's own, not migrated: on PostgreSQL (DATABASE_URL) a dedicated
 * one named after `suffix`, else an in-memory PGlite. `url` is null on PGlite. `close()` closes it
 * and drops the PostgreSQL database.
 */
export async function emptyTestDatabase(suffix: string): Promise<{ database: Database; url: string | null; close: () => Promise<void> }> {
  const dedicated = process.env.DATABASE_URL ? await dedicatedDatabase(process.env.DATABASE_URL, `dcm_t_${process.env.DCM_TEST_RUN}_${suffix}`) : null;
  const database = await openDatabase({ databaseUrl: dedicated?.url ?? null, dataDir: null });
  return {
    database,
    url: dedicated?.url ?? null,
    close: async () => {
      await database.close();
      await dedicated?.drop();
    },
  };
}

/**
 * Forward-only SQL migrations: src/db/migrations/NNNN_name.sql, applied in order, each in
 * its own transaction together with its row in schema_migrations. On PostgreSQL an
 * advisory lock makes concurrent starts of several processes apply each migration once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { Database } from './database.js';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
const LOCK_ID = 7_302_115_001;

interface Migration {
  version: string;
  file: string;
}

function listMigrations(): Migration[] {
  return fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((file) => ({ version: file.slice(0, 4), file }));
}

/** `through`: apply only the migrations up to this version (tests of a migration's data conversion). */
export async function migrate(database: Database, options: { through?: string } = {}): Promise<string[]> {
  const { db } = database;
  const applied: string[] = [];
  const apply = async () => {
    // Under the lock: two starts creating it at once on an empty database would collide.
    await database.runScript(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set((await sql<{ version: string }>`SELECT version FROM schema_migrations`.execute(db)).rows.map((r) => r.version));
    for (const m of listMigrations()) {
      if (done.has(m.version)) continue;
      if (options.through !== undefined && m.version > options.through) break;
      const body = fs.readFileSync(path.join(MIGRATIONS_DIR, m.file), 'utf8');
      const record = `INSERT INTO schema_migrations (version, name) VALUES ('${m.version}', '${m.file}');`;
      await database.runScript(`BEGIN;\n${body}\n;${record}\nCOMMIT;`);
      applied.push(m.file);
    }
  };
  if (database.sessionLock) {
    // The lock is held by a session of its own (the direct URL: through a pooler in transaction
    // mode a pooled session is not ours between statements) for the whole run; migrations use the pool.
    const unlock = await database.sessionLock(LOCK_ID);
    try {
      await apply();
    } finally {
      await unlock();
    }
  } else {
    await apply();
  }
  return applied;
}

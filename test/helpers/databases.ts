/**
 * A PostgreSQL database of its own, for a test file, the scale-out run or a benchmark:
 * created empty (or from a template) next to DATABASE_URL's, dropped by `drop()`.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

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

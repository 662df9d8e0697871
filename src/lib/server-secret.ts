/** A random secret created once per database and shared by every process that uses it. */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';

export async function serverSecret(db: Kysely<DB>, name: string): Promise<string> {
  await db
    .insertInto('server_settings')
    .values({ key: name, value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.selectFrom('server_settings').select('value').where('key', '=', name).executeTakeFirstOrThrow();
  return row.value;
}

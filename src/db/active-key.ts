/**
 * When an API key is active (spec 5.5, 6.4): not revoked (a replacement revokes too) and not
 * expired. The rule is the SQL function `api_key_active` (migration 0105, which the outbox's
 * `record_event` calls too); every query asks it through here. The in-memory check of a
 * presented key (`Authenticator.authenticate`) reads the same two columns.
 */
import { sql, type RawBuilder } from 'kysely';

/** `alias`: the api_keys row's name in the query (`k`), or none for an unaliased api_keys. */
export function keyActive(alias?: string): RawBuilder<boolean> {
  const column = (name: string) => sql.ref(alias ? `${alias}.${name}` : name);
  return sql<boolean>`api_key_active(${column('revoked_at')}, ${column('expires_at')})`;
}

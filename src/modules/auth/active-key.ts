/**
 * When an API key is active (spec 5.5, 6.4): not revoked (a replacement revokes too) and not
 * expired. The one SQL form of the rule, for every query that asks it; the in-memory check of
 * a presented key (`Authenticator.authenticate`) reads the same two columns.
 */
import { sql, type RawBuilder } from 'kysely';

/** `alias`: the api_keys row's name in the query (`k`), or none for an unaliased api_keys. */
export function keyActive(alias?: string): RawBuilder<boolean> {
  const column = (name: string) => sql.ref(alias ? `${alias}.${name}` : name);
  return sql<boolean>`(${column('revoked_at')} IS NULL AND (${column('expires_at')} IS NULL OR ${column('expires_at')} > now()))`;
}

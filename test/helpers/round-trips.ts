/**
 * A Kysely over one PostgreSQL connection made by the pool's client class (src/db/pg-client.ts)
 * that counts its round trips: the ReadyForQuery answers the client reads, one per round trip.
 * One connection, so every statement shares one session.
 */
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { poolClient } from '../../src/db/pg-client.js';
import type { StatementNames } from '../../src/db/prepared-statements.js';

export interface Wire {
  /** Round trips since the last reset (set it to 0). */
  roundTrips: number;
  /** The one connection, once made. */
  client: pg.PoolClient | undefined;
}

export function countingDb<T>(url: string, names?: StatementNames): { db: Kysely<T>; wire: Wire } {
  const wire: Wire = { roundTrips: 0, client: undefined };
  const pool = new pg.Pool({ connectionString: url, max: 1, Client: poolClient(pg, names) });
  pool.on('connect', (c) => {
    wire.client = c as pg.PoolClient;
    (c as unknown as { connection: { on(event: string, f: () => void): void } }).connection.on('readyForQuery', () => (wire.roundTrips += 1));
  });
  return { db: new Kysely<T>({ dialect: new PostgresDialect({ pool }) }), wire };
}

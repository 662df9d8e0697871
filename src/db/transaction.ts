/**
 * The handle a command's queries take (DESIGN convention 2: one transaction per command,
 * passed to every query inside it). Kysely's `Transaction` is a distinct class from the
 * database handle (`Kysely<DB>`), so a function that takes a `Transaction` refuses the
 * database handle at compile time: a query cannot quietly run outside its transaction.
 */
import type { Kysely, Transaction as KyselyTransaction } from 'kysely';
import type { DB } from './schema.js';

export type Transaction = KyselyTransaction<DB>;

/** The database handle, for reads and for starting transactions. */
export type Db = Kysely<DB>;

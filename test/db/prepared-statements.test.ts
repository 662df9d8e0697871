/**
 * Named prepared statements (src/db/prepared-statements.ts): on PostgreSQL a statement marked
 * with prepared() is, after the process ran it 1,000 times, prepared once per connection and
 * then only executed; an unmarked one never is; a schema change that outdates a kept plan fails
 * the statement in flight once, and the next runs of that statement are right for the new schema.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { prepared, StatementNames, PREPARED_MARK } from '../../src/db/prepared-statements.js';
import { ENGINE } from '../helpers/server.js';

describe('statement names', () => {
  it('names marked texts only, after their runs unnamed, one name per text, at most the bound', () => {
    const names = new StatementNames({ prepareAfter: 3, maxNamed: 2 });
    for (let i = 0; i < 5; i++) expect(names.nameOf('SELECT $1')).toBeUndefined();
    expect(names.nameOf(`${PREPARED_MARK} SELECT $1`)).toBeUndefined();
    expect(names.nameOf(`${PREPARED_MARK} SELECT $1`)).toBeUndefined();
    const a = names.nameOf(`${PREPARED_MARK} SELECT $1`);
    expect(a).toBeDefined();
    expect(names.nameOf(`${PREPARED_MARK} SELECT $1`)).toBe(a);
    names.nameOf(`${PREPARED_MARK} SELECT $1, $2`);
    names.nameOf(`${PREPARED_MARK} SELECT $1, $2`);
    const b = names.nameOf(`${PREPARED_MARK} SELECT $1, $2`);
    expect(b).toBeDefined();
    expect(b).not.toBe(a);
    for (let i = 0; i < 5; i++) expect(names.nameOf(`${PREPARED_MARK} SELECT $1, $2, $3`)).toBeUndefined();
    expect(names.nameOf(`${PREPARED_MARK} SELECT $1`)).toBe(a);
  });

  it('names nothing with prepareAfter 0 (DB_PREPARE_AFTER=0)', () => {
    const names = new StatementNames({ prepareAfter: 0 });
    for (let i = 0; i < 5; i++) expect(names.nameOf(`${PREPARED_MARK} SELECT $1`)).toBeUndefined();
  });

  it('renames every text after a plan outdated by a schema change, and only then', () => {
    const names = new StatementNames({ prepareAfter: 1, maxNamed: 10 });
    const text = `${PREPARED_MARK} SELECT * FROM t WHERE id = $1`;
    const first = names.nameOf(text);
    names.failed(Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }));
    expect(names.nameOf(text)).toBe(first);
    names.failed(Object.assign(new Error('cached plan must not change result type'), { code: '0A000' }));
    const second = names.nameOf(text);
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
  });
});

describe.skipIf(ENGINE !== 'postgres')('prepared statements on PostgreSQL', () => {
  let database: Database;
  // One connection: every statement below, and pg_prepared_statements, see the same session.
  beforeAll(async () => {
    database = await openDatabase({ databaseUrl: process.env.DATABASE_URL!, dataDir: null, poolMax: 1 });
    await sql`CREATE TEMP TABLE prepared_probe (id int PRIMARY KEY, label text)`.execute(database.db);
    await sql`INSERT INTO prepared_probe VALUES (1, 'one'), (2, 'two')`.execute(database.db);
  });
  afterAll(() => database.close());

  const kept = async () =>
    (await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements WHERE name LIKE 'dcm\\_%'`.execute(database.db)).rows.map(
      (r) => r.statement,
    );
  const probe = (id: number) => prepared(sql<Record<string, unknown>>`SELECT * FROM prepared_probe WHERE id = ${id}`).execute(database.db);

  it('prepares a marked statement once on the connection after 1,000 runs, and reuses it with other values', async () => {
    for (let i = 0; i < 998; i++) await probe(1);
    expect((await probe(1)).rows).toEqual([{ id: 1, label: 'one' }]);
    expect((await kept()).filter((s) => s.includes('prepared_probe'))).toEqual([]);
    expect((await probe(2)).rows).toEqual([{ id: 2, label: 'two' }]);
    expect((await probe(1)).rows).toEqual([{ id: 1, label: 'one' }]);
    const statements = await kept();
    expect(statements.filter((s) => s.includes('prepared_probe'))).toHaveLength(1);
    expect(statements.every((s) => s.startsWith(PREPARED_MARK))).toBe(true);
  });

  it('does not prepare an unmarked statement', async () => {
    await sql`SELECT label FROM prepared_probe WHERE id = ${1}`.execute(database.db);
    expect((await kept()).filter((s) => s.includes('SELECT label'))).toEqual([]);
  });

  it('after a column is added, fails the outdated statement once, then answers with the new column', async () => {
    await probe(1);
    await sql`ALTER TABLE prepared_probe ADD COLUMN extra text DEFAULT 'x'`.execute(database.db);
    await expect(probe(1)).rejects.toMatchObject({ code: '0A000' });
    expect((await probe(1)).rows).toEqual([{ id: 1, label: 'one', extra: 'x' }]);
    expect((await probe(2)).rows).toEqual([{ id: 2, label: 'two', extra: 'x' }]);
  });
});

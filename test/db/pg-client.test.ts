/**
 * The pool's client class (src/db/pg-client.ts) on PostgreSQL: a transaction's BEGIN travels with
 * its first statement, so a transaction of N statements costs N + 1 round trips (its statements
 * and COMMIT), and every statement still runs inside the transaction, on every path: a statement
 * with parameters or without, named or not, prepared on the connection or not, a script of
 * several statements, a failing first statement, a transaction that sends nothing. A last
 * statement marked thenCommit() carries the COMMIT too (N round trips), and commits only when it
 * succeeds. A first statement marked WITH_BEGIN_MARK (an idempotency key's mark) goes out with
 * BEGIN and the next statement, in their round trip.
 */
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WITH_BEGIN_MARK } from '../../src/db/pg-client.js';
import { prepared, StatementNames } from '../../src/db/prepared-statements.js';
import { commitCheck, isCommitRefused, lastStatement, thenCommit } from '../../src/db/then-commit.js';
import { dedicatedDatabase } from '../helpers/databases.js';
import { countingDb, type Wire } from '../helpers/round-trips.js';
import { ENGINE } from '../helpers/server.js';

describe.skipIf(ENGINE !== 'postgres')('the pool client on PostgreSQL', () => {
  let db: Kysely<any>;
  /** The connection's round trips, counted from the last reset, and the connection itself. */
  let wire: Wire;
  let database: { url: string; drop: () => Promise<void> };

  beforeAll(async () => {
    // A migrated database: thenCommit's checks call commit_refused (migration 0106).
    database = await dedicatedDatabase(process.env.DATABASE_URL!, `dcm_t_${process.env.DCM_TEST_RUN}`, process.env.DCM_TEST_TEMPLATE);
    // Every marked text is named from its first run.
    ({ db, wire } = countingDb<any>(database.url, new StatementNames({ prepareAfter: 1 })));
    await sql`CREATE TEMP TABLE begin_probe (id int PRIMARY KEY, label text)`.execute(db);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });
  beforeEach(async () => {
    await sql`DELETE FROM begin_probe`.execute(db);
    wire.roundTrips = 0;
  });

  const xid = sql<{ xid: string }>`SELECT pg_current_xact_id()::text AS xid`;
  const count = async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM begin_probe`.execute(db)).rows[0]!.n);

  it('sends BEGIN with the first statement: two statements and COMMIT, three round trips, one transaction', async () => {
    const ids = await db.transaction().execute(async (trx) => {
      const first = await sql<{ xid: string }>`INSERT INTO begin_probe VALUES (${1}, ${'one'}) RETURNING pg_current_xact_id()::text AS xid`.execute(trx);
      const second = await sql<{ xid: string; label: string }>`SELECT pg_current_xact_id()::text AS xid, label FROM begin_probe WHERE id = ${1}`.execute(trx);
      expect(second.rows[0]!.label).toBe('one');
      return [first.rows[0]!.xid, second.rows[0]!.xid];
    });
    expect(wire.roundTrips).toBe(3);
    expect(ids[0]).toBe(ids[1]);
    expect(wire.client!.getTransactionStatus()).toBe('I');
    expect(await count()).toBe(1);
  });

  it('rolls the first statement back with the transaction', async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await sql`INSERT INTO begin_probe VALUES (${2}, ${'two'})`.execute(trx);
        throw new Error('the service refuses');
      }),
    ).rejects.toThrow('the service refuses');
    expect(await count()).toBe(0);
  });

  it('answers a failing first statement with its own error, and the connection goes on', async () => {
    await sql`INSERT INTO begin_probe VALUES (${3}, ${'three'})`.execute(db);
    await expect(
      db.transaction().execute(async (trx) => {
        await sql`INSERT INTO begin_probe VALUES (${3}, ${'again'})`.execute(trx);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(wire.client!.getTransactionStatus()).toBe('I');
    await db.transaction().execute(async (trx) => {
      await sql`INSERT INTO begin_probe VALUES (${4}, ${'four'})`.execute(trx);
    });
    expect(await count()).toBe(2);
  });

  it('sends nothing for a transaction that ends before its first statement', async () => {
    await expect(
      db.transaction().execute(async () => {
        throw new Error('invalid body');
      }),
    ).rejects.toThrow('invalid body');
    expect(await db.transaction().execute(async () => 'nothing to write')).toBe('nothing to write');
    expect(wire.roundTrips).toBe(0);
    expect(wire.client!.getTransactionStatus()).toBe('I');
  });

  it('sends BEGIN alone before a first statement without parameters, and before a script of several', async () => {
    const [a, b] = await db.transaction().execute(async (trx) => [(await xid.execute(trx)).rows[0]!.xid, (await xid.execute(trx)).rows[0]!.xid]);
    expect(a).toBe(b);
    expect(wire.roundTrips).toBe(4);
    await expect(
      db.transaction().execute(async (trx) => {
        await sql.raw(`INSERT INTO begin_probe VALUES (5, 'five'); INSERT INTO begin_probe VALUES (6, 'six')`).execute(trx);
        throw new Error('undo the script');
      }),
    ).rejects.toThrow('undo the script');
    expect(await count()).toBe(0);
  });

  it('runs a named statement in the transaction, the first time on the connection and after', async () => {
    const insert = (id: number) => prepared(sql<{ xid: string }>`INSERT INTO begin_probe VALUES (${id}, 'named') RETURNING pg_current_xact_id()::text AS xid`);
    for (const id of [7, 8]) {
      wire.roundTrips = 0;
      await expect(
        db.transaction().execute(async (trx) => {
          const inserted = (await insert(id).execute(trx)).rows[0]!.xid;
          expect((await xid.execute(trx)).rows[0]!.xid).toBe(inserted);
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
      // The first time BEGIN goes alone (the statement is not prepared on this connection yet).
      expect(wire.roundTrips).toBe(id === 7 ? 4 : 3);
    }
    const kept = await sql<{ n: string }>`SELECT count(*) AS n FROM pg_prepared_statements WHERE statement LIKE '%begin_probe%'`.execute(db);
    expect(Number(kept.rows[0]!.n)).toBe(1);
    expect(await count()).toBe(0);
  });

  describe('a last statement marked thenCommit', () => {
    const insertThenCommit = (id: number, label: string) =>
      thenCommit(sql<{ xid: string }>`INSERT INTO begin_probe VALUES (${id}, ${label}) RETURNING pg_current_xact_id()::text AS xid`);

    it('carries the COMMIT: two statements, two round trips, one transaction, committed', async () => {
      const ids = await db.transaction().execute(async (trx) => {
        const first = (await sql<{ xid: string }>`INSERT INTO begin_probe VALUES (${10}, ${'ten'}) RETURNING pg_current_xact_id()::text AS xid`.execute(trx))
          .rows[0]!.xid;
        const last = (await insertThenCommit(11, 'eleven').execute(trx)).rows[0]!.xid;
        return [first, last];
      });
      expect(wire.roundTrips).toBe(2);
      expect(ids[0]).toBe(ids[1]);
      expect(wire.client!.getTransactionStatus()).toBe('I');
      expect(await count()).toBe(2);
    });

    it('goes with BEGIN when it is the only statement: one round trip, named or not', async () => {
      await db.transaction().execute((trx) => insertThenCommit(12, 'twelve').execute(trx));
      expect(wire.roundTrips).toBe(1);
      const named = (id: number) => prepared(insertThenCommit(id, 'named'));
      wire.roundTrips = 0;
      // The first time on the connection, BEGIN goes alone (the statement is not prepared here yet).
      await db.transaction().execute((trx) => named(13).execute(trx));
      await db.transaction().execute((trx) => named(14).execute(trx));
      expect(wire.roundTrips).toBe(2 + 1);
      expect(await count()).toBe(3);
      expect(wire.client!.getTransactionStatus()).toBe('I');
    });

    it('commits nothing when one of its checks refuses, and the transaction rolls back', async () => {
      const refusing = (id: number) =>
        lastStatement(sql`WITH inserted AS (INSERT INTO begin_probe VALUES (${id}, ${'refused'}) RETURNING id)`, sql`SELECT id FROM inserted`, {
          commits: true,
          checks: [commitCheck('too_big', { when: sql<boolean>`answer.id > ${100}` })],
        }).statement;
      const error = await db
        .transaction()
        .execute(async (trx) => {
          await sql`INSERT INTO begin_probe VALUES (${15}, ${'before'})`.execute(trx);
          await refusing(101).execute(trx);
        })
        .catch((e: unknown) => e);
      expect(isCommitRefused(error)).toBe(true);
      expect((error as Error).message).toContain('too_big');
      expect(wire.client!.getTransactionStatus()).toBe('I');
      expect(await count()).toBe(0);
      // The same statement whose checks pass commits.
      await db.transaction().execute((trx) => refusing(16).execute(trx));
      expect(await count()).toBe(1);
    });

    it('reads from the same checks, without the COMMIT, the outcome of the first that held', async () => {
      type Row = { id: number };
      const checks = [
        commitCheck<Row, { kind: 'too_big'; id: number }>('too_big', {
          when: sql<boolean>`answer.id > ${100}`,
          outcome: (row) => ({ kind: 'too_big', id: row.id }),
        }),
        commitCheck<Row>('odd', { when: sql<boolean>`answer.id % 2 = 1` }),
      ];
      const insert = (id: number, commits: boolean) =>
        lastStatement<Row, (typeof checks)[number]>(
          sql`WITH inserted AS (INSERT INTO begin_probe VALUES (${id}, ${'read'}) RETURNING id)`,
          sql`SELECT id FROM inserted`,
          {
            commits,
            checks,
          },
        );
      for (const [id, outcome] of [
        [102, { kind: 'too_big', id: 102 }],
        [17, undefined],
        [18, undefined],
      ] as const) {
        const refused = await db
          .transaction()
          .execute((trx) => insert(id, true).statement.execute(trx))
          .then(
            () => false,
            (e: unknown) => isCommitRefused(e),
          );
        // Refused exactly where a check holds (the odd id too: a check without an outcome only refuses).
        expect(refused).toBe(id > 100 || id % 2 === 1);
        const last = insert(id, false);
        const read = await db.transaction().execute(async (trx) => {
          await sql`DELETE FROM begin_probe WHERE id = ${id}`.execute(trx); // the committed run's row
          return last.read((await last.statement.execute(trx)).rows);
        });
        expect(read.outcome).toEqual(outcome);
        // The check columns are not part of the answer.
        expect(read.rows).toEqual([{ id }]);
      }
    });

    it('answers a failing COMMIT as the statement’s error', async () => {
      await sql`CREATE TEMP TABLE deferred_probe (id int PRIMARY KEY REFERENCES begin_probe (id) DEFERRABLE INITIALLY DEFERRED)`.execute(db);
      try {
        const error = await db
          .transaction()
          .execute(async (trx) => {
            await sql`INSERT INTO begin_probe VALUES (${17}, ${'seventeen'})`.execute(trx);
            // Checked at COMMIT: no begin_probe row 99.
            await thenCommit(sql`INSERT INTO deferred_probe VALUES (${99})`).execute(trx);
          })
          .catch((e: unknown) => e);
        expect((error as { code?: string }).code).toBe('23503');
        expect(wire.client!.getTransactionStatus()).toBe('I');
        expect(await count()).toBe(0);
      } finally {
        await sql`DROP TABLE deferred_probe`.execute(db);
      }
    });

    it('refuses a statement after it in the same transaction, and runs as usual outside a transaction', async () => {
      await expect(
        db.transaction().execute(async (trx) => {
          await insertThenCommit(18, 'eighteen').execute(trx);
          await sql`INSERT INTO begin_probe VALUES (${19}, ${'too late'})`.execute(trx);
        }),
      ).rejects.toThrow('after its transaction committed');
      // The marked statement had committed; the one after never ran.
      expect(await count()).toBe(1);
      wire.roundTrips = 0;
      await insertThenCommit(20, 'alone').execute(db);
      expect(wire.roundTrips).toBe(1);
      expect(await count()).toBe(2);
      expect(wire.client!.getTransactionStatus()).toBe('I');
    });
  });

  describe('a first statement marked WITH_BEGIN_MARK', () => {
    /** Records the transaction it ran in as its label. */
    const keptInsert = (id: number) => sql`INSERT INTO begin_probe VALUES (${id}, pg_current_xact_id()::text) ${sql.raw(WITH_BEGIN_MARK)}`;
    const labelOf = (id: number) => sql<{ label: string; xid: string }>`SELECT label, pg_current_xact_id()::text AS xid FROM begin_probe WHERE id = ${id}`;

    it('goes out with BEGIN and the next statement: no round trip of its own, the same transaction', async () => {
      const row = await db.transaction().execute(async (trx) => {
        await keptInsert(31).execute(trx);
        return (await labelOf(31).execute(trx)).rows[0]!;
      });
      expect(row.label).toBe(row.xid);
      expect(wire.roundTrips).toBe(2); // the SELECT with BEGIN and the kept INSERT, then COMMIT
      expect(await count()).toBe(1);
      wire.roundTrips = 0;
      // With a thenCommit statement next: BEGIN, the kept statement, the statement and COMMIT in one round trip.
      await db.transaction().execute(async (trx) => {
        await keptInsert(32).execute(trx);
        await thenCommit(sql`INSERT INTO begin_probe VALUES (${33}, ${'last'})`).execute(trx);
      });
      expect(wire.roundTrips).toBe(1);
      expect(await count()).toBe(3);
    });

    it('sends nothing when the transaction ends before another statement, and rolls back with it', async () => {
      await expect(
        db.transaction().execute(async (trx) => {
          await keptInsert(34).execute(trx);
          throw new Error('invalid body');
        }),
      ).rejects.toThrow('invalid body');
      expect(wire.roundTrips).toBe(0);
      await expect(
        db.transaction().execute(async (trx) => {
          await keptInsert(35).execute(trx);
          await labelOf(35).execute(trx);
          throw new Error('the service refuses');
        }),
      ).rejects.toThrow('the service refuses');
      expect(await count()).toBe(0);
      expect(wire.client!.getTransactionStatus()).toBe('I');
    });

    it('fails the next statement with its own error when it fails, and the next statement does not run', async () => {
      await sql`INSERT INTO begin_probe VALUES (${36}, ${'taken'})`.execute(db);
      await expect(
        db.transaction().execute(async (trx) => {
          await keptInsert(36).execute(trx);
          await sql`INSERT INTO begin_probe VALUES (${37}, ${'never'})`.execute(trx);
        }),
      ).rejects.toMatchObject({ code: '23505' });
      expect(await count()).toBe(1);
      expect(wire.client!.getTransactionStatus()).toBe('I');
    });

    it('goes with BEGIN before a named statement not prepared on the connection yet', async () => {
      const named = prepared(sql<{ label: string; xid: string }>`SELECT label, pg_current_xact_id()::text AS xid FROM begin_probe WHERE id = ${38} AND true`);
      const row = await db.transaction().execute(async (trx) => {
        await keptInsert(38).execute(trx);
        return (await named.execute(trx)).rows[0]!;
      });
      expect(row.label).toBe(row.xid);
      expect(wire.roundTrips).toBe(3); // BEGIN with the kept statement, the named one (prepared now), COMMIT
    });
  });
});

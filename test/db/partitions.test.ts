/**
 * The tables partitioned by month (docs/operations.md, "Partitioned tables"):
 * - an installation upgraded with rows of several months keeps every row, each in its month's
 *   partition, with the table's keys, indexes, trigger and view in place;
 * - the `partitions` job, at a fixed time, makes the current month and the next two, drops only
 *   the months wholly older than each table's retention, and then the access log's lists of
 *   resources that no remaining entry names.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { dropMonthPartition } from '../../src/db/partitions.js';
import { maintainPartitions, MONTHS_AHEAD, partitionedTables } from '../../src/jobs/partitions.js';
import { resourcesIdOf } from '../../src/modules/access-log/resources.js';
import { emptyTestDatabase } from '../helpers/databases.js';

let database: Database;
let databaseUrl: string | null = null;
let closeDatabase = async () => {};
beforeAll(async () => {
  const opened = await emptyTestDatabase('partitions');
  ({ database, close: closeDatabase } = opened);
  databaseUrl = opened.url;
});
afterAll(() => closeDatabase());

const DAY = 86_400_000;
const clinicId = randomUUID();

/** Each row's partition and the month its time falls in (UTC), for every row of `table`. */
async function placement(table: 'access_log' | 'events', column: 'at' | 'created_at') {
  const { rows } = await sql<{ id: string; partition: string; month: string }>`
    SELECT id, tableoid::regclass::text AS partition, ${table}::text || '_' || to_char(${sql.ref(column)} AT TIME ZONE 'UTC', 'YYYY_MM') AS month
    FROM ${sql.table(table)}`.execute(database.db);
  return rows;
}

async function partitionsOf(table: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT c.relname::text AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = ${table}::regclass ORDER BY 1`.execute(database.db);
  return rows.map((r) => r.name);
}

describe('an installation upgraded with rows of several months', () => {
  const times = [
    new Date(Date.now() - 800 * DAY),
    new Date(Date.now() - 400 * DAY),
    new Date(Date.now() - 65 * DAY),
    new Date(Date.now() - 33 * DAY),
    new Date(Date.now() - DAY),
    new Date(),
    // The first instant of a month belongs to that month.
    new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1)),
  ];
  type Snapshot = Record<string, unknown>[];
  let logBefore: Snapshot;
  let eventsBefore: Snapshot;
  const lists: string[] = [];

  it('keeps every row of the access log and of the events, each in the partition of its month', async () => {
    await migrate(database, { through: '0135' });
    const organizationId = randomUUID();
    await sql`INSERT INTO organizations (id, name) VALUES (${organizationId}, 'Org')`.execute(database.db);
    await sql`INSERT INTO clinics (id, organization_id, name, mode) VALUES (${clinicId}, ${organizationId}, 'Clinica', 'live')`.execute(database.db);
    for (const [i, at] of times.entries()) {
      const ids = [randomUUID(), randomUUID()];
      const listId = resourcesIdOf(clinicId, 'patient', ids);
      lists.push(listId);
      await sql`INSERT INTO access_log_resources (id, clinic_id, resource_type, resource_ids) VALUES (${listId}, ${clinicId}, 'patient', ${ids}::uuid[])`.execute(
        database.db,
      );
      for (let k = 0; k < 3; k++) {
        await sql`INSERT INTO access_log (id, clinic_id, request_id, fields, at, resources_id)
          VALUES (${randomUUID()}, ${clinicId}, ${`req-${i}-${k}`}, ARRAY['firstName'], ${at}, ${listId})`.execute(database.db);
        await sql`INSERT INTO events (id, clinic_id, type, facility_id, scope, livemode, data, created_at)
          VALUES (${randomUUID()}, ${clinicId}, 'patient.created', NULL, 'patients:read', true, ${JSON.stringify({ i, k })}::jsonb, ${at})`.execute(
          database.db,
        );
      }
    }
    // A row in the shape written before migration 0050, converted by its trigger.
    await sql`INSERT INTO access_log (id, clinic_id, request_id, resource_type, resource_ids, fields)
      VALUES (${randomUUID()}, ${clinicId}, 'old-shape', 'call', ${[randomUUID()]}::uuid[], ARRAY['transcript'])`.execute(database.db);
    logBefore = (await sql<Record<string, unknown>>`SELECT * FROM access_log ORDER BY id`.execute(database.db)).rows;
    eventsBefore = (await sql<Record<string, unknown>>`SELECT * FROM events ORDER BY id`.execute(database.db)).rows;
    expect(logBefore).toHaveLength(times.length * 3 + 1);

    const applied = await migrate(database);
    expect(applied).toContain('0136_access_log_by_month.sql');
    expect(applied).toContain('0137_events_by_month.sql');

    expect((await sql<Record<string, unknown>>`SELECT * FROM access_log ORDER BY id`.execute(database.db)).rows).toEqual(logBefore);
    expect((await sql<Record<string, unknown>>`SELECT * FROM events ORDER BY id`.execute(database.db)).rows).toEqual(eventsBefore);
    for (const [table, column] of [
      ['access_log', 'at'],
      ['events', 'created_at'],
    ] as const) {
      const placed = await placement(table, column);
      expect(placed).toHaveLength(table === 'access_log' ? logBefore.length : eventsBefore.length);
      for (const row of placed) expect(row.partition, `${table} ${row.id}`).toBe(row.month);
      // The plain table is gone: the name is the partitioned table's.
      const kind = await sql<{ relkind: string }>`SELECT relkind::text FROM pg_class WHERE oid = ${table}::regclass`.execute(database.db);
      expect(kind.rows[0]!.relkind).toBe('p');
    }
  });

  it('makes the current month and the next two, and keeps the keys, indexes, trigger and view', async () => {
    const now = new Date();
    for (const table of ['access_log', 'events']) {
      const partitions = await partitionsOf(table);
      for (let m = 0; m <= MONTHS_AHEAD; m++) {
        const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + m, 1));
        expect(partitions).toContain(`${table}_${month.getUTCFullYear()}_${String(month.getUTCMonth() + 1).padStart(2, '0')}`);
      }
    }
    const { rows } = await sql<{ name: string }>`
      SELECT indexname::text AS name FROM pg_indexes WHERE tablename IN ('access_log', 'events') ORDER BY 1`.execute(database.db);
    expect(rows.map((r) => r.name)).toEqual([
      'access_log_clinic_at_idx',
      'access_log_pkey',
      'access_log_resources_id_idx',
      'events_clinic_created_idx',
      'events_clinic_type_created_idx',
      'events_pkey',
    ]);
    // A list no row names is refused (the foreign key), a row in the old shape is converted (the trigger).
    await expect(
      sql`INSERT INTO access_log (id, clinic_id, fields, resources_id) VALUES (${randomUUID()}, ${clinicId}, ARRAY['x'], ${randomUUID()})`.execute(database.db),
    ).rejects.toMatchObject({ code: '23503' });
    const call = [randomUUID()];
    await sql`INSERT INTO access_log (id, clinic_id, request_id, resource_type, resource_ids, fields)
      VALUES (${randomUUID()}, ${clinicId}, 'old-shape-after', 'call', ${call}::uuid[], ARRAY['transcript'])`.execute(database.db);
    const entry = await sql<{ resource_ids: string[] }>`SELECT resource_ids FROM access_log_entries WHERE request_id = 'old-shape-after'`.execute(database.db);
    expect(entry.rows[0]!.resource_ids).toEqual(call);
    // The events keep their foreign key to the clinics.
    await expect(
      sql`INSERT INTO events (id, clinic_id, type, scope, livemode, data) VALUES (${randomUUID()}, ${randomUUID()}, 'x', 'x', true, '{}')`.execute(database.db),
    ).rejects.toMatchObject({ code: '23503' });
  });
});

describe('the partitions job', () => {
  it('makes the months ahead and drops only the months wholly past each retention', async () => {
    // Placed in the future, so that the months the test fills are its own.
    const year = new Date().getUTCFullYear() + 2;
    const at = (month: number, day: number) => new Date(Date.UTC(year, month - 1, day));
    const tables = partitionedTables({ accessLogDays: 731, eventsDays: 30 });

    const first = await maintainPartitions(database.db, tables, at(1, 10));
    expect(first.dropped.filter((p) => p.startsWith(`events_${year}`))).toEqual([]);
    for (const table of ['access_log', 'events']) {
      for (const m of ['01', '02', '03']) expect(await partitionsOf(table)).toContain(`${table}_${year}_${m}`);
      expect(await partitionsOf(table)).not.toContain(`${table}_${year}_04`);
    }
    // Again at the same time: nothing more to make.
    expect((await maintainPartitions(database.db, tables, at(1, 10))).created).toBe(0);

    const january = randomUUID();
    const february = randomUUID();
    for (const [id, time] of [
      [january, at(1, 20)],
      [february, at(2, 20)],
    ] as const) {
      await sql`INSERT INTO events (id, clinic_id, type, scope, livemode, data, created_at)
        VALUES (${id}, ${clinicId}, 'patient.created', 'patients:read', true, '{}', ${time})`.execute(database.db);
    }
    // The access log: a list named only by a row of a month to be dropped, one named by a kept row too.
    const onlyOld = randomUUID();
    const alsoKept = randomUUID();
    for (const list of [onlyOld, alsoKept]) {
      await sql`INSERT INTO access_log_resources (id, clinic_id, resource_type, resource_ids) VALUES (${list}, ${clinicId}, 'patient', ${[randomUUID()]}::uuid[])`.execute(
        database.db,
      );
    }
    const logRow = async (list: string, time: Date) =>
      sql`INSERT INTO access_log (id, clinic_id, fields, at, resources_id) VALUES (${randomUUID()}, ${clinicId}, ARRAY['firstName'], ${time}, ${list})`.execute(
        database.db,
      );
    await logRow(onlyOld, at(1, 5));
    await logRow(alsoKept, at(1, 6));
    await logRow(alsoKept, at(3, 1));

    // The access log keeps 731 days: at 15 March only its months that ended over 731 days before go.
    const logPast = await monthsBefore('access_log', new Date(at(3, 15).getTime() - 731 * DAY));
    expect(logPast).not.toContain(`access_log_${year}_01`);
    // 15 March: 30 days back is 13 February, so January (ended 1 February) goes and February stays.
    const events = await maintainPartitions(database.db, tables, at(3, 15));
    expect(events.dropped).toContain(`events_${year}_01`);
    expect(events.dropped).not.toContain(`events_${year}_02`);
    expect(events.dropped.filter((p) => p.startsWith('access_log_'))).toEqual(logPast);
    expect(events.deferred).toEqual([]);
    for (const m of ['04', '05']) expect(await partitionsOf('events')).toContain(`events_${year}_${m}`);
    const left = await sql<{ id: string }>`SELECT id FROM events WHERE id IN (${january}, ${february})`.execute(database.db);
    expect(left.rows.map((r) => r.id)).toEqual([february]);

    // Two years and more later the access log's January goes, and with it the list only it named.
    const later = new Date(at(1, 1).getTime() + 800 * DAY);
    const log = await maintainPartitions(database.db, tables, later);
    expect(log.dropped).toContain(`access_log_${year}_01`);
    expect(log.dropped).not.toContain(`access_log_${year}_03`);
    const stored = await sql<{ id: string }>`SELECT id FROM access_log_resources WHERE id IN (${onlyOld}, ${alsoKept})`.execute(database.db);
    expect(stored.rows.map((r) => r.id)).toEqual([alsoKept]);
    const kept = await sql<{ n: number }>`SELECT count(*)::int AS n FROM access_log WHERE resources_id = ${alsoKept}`.execute(database.db);
    expect(kept.rows[0]!.n).toBe(1);
  });
});

describe.runIf(process.env.DATABASE_URL)('a drop that cannot have its lock at once', () => {
  it('gives up after the lock timeout, leaving the month for the next run', async () => {
    const month = new Date(Date.UTC(new Date().getUTCFullYear() + 5, 0, 1));
    await sql`SELECT create_month_partitions('events', ${month}::timestamptz, ${month}::timestamptz)`.execute(database.db);
    const partition = `events_${month.getUTCFullYear()}_01`;
    // Another session reads the events in an open transaction: it holds a lock the drop must wait for.
    const reader = new pg.Client({ connectionString: databaseUrl! });
    await reader.connect();
    try {
      await reader.query('BEGIN');
      await reader.query('SELECT count(*) FROM events');
      const started = Date.now();
      expect(await dropMonthPartition(database.db, partition, 100)).toBe(false);
      expect(Date.now() - started).toBeLessThan(5000);
      await reader.query('COMMIT');
      expect(await dropMonthPartition(database.db, partition, 100)).toBe(true);
      expect((await sql<{ r: string | null }>`SELECT to_regclass(${partition})::text AS r`.execute(database.db)).rows[0]!.r).toBeNull();
    } finally {
      await reader.end();
    }
  });
});

/** The partitions of `table` whose month ended by `before`. */
async function monthsBefore(table: string, before: Date): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`SELECT month_partitions_before(${table}, ${before}::timestamptz) AS name`.execute(database.db);
  return rows.map((r) => r.name);
}

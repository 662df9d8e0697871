/**
 * The upgrade to the tables partitioned by month (migrations 0136, 0137) while a process of the
 * previous version goes on writing (PostgreSQL: the embedded database has one session, and
 * migrates before it serves): every row written before, during and after keeps its place, once.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { dedicatedDatabase } from '../helpers/databases.js';

const clinicId = '00000000-0000-4000-8000-00000000000a';

describe.runIf(process.env.DATABASE_URL)('the upgrade while the previous version writes', () => {
  let database: Database;
  let url: string;
  let drop = async () => {};
  beforeAll(async () => {
    const dedicated = await dedicatedDatabase(process.env.DATABASE_URL!, `dcm_t_${process.env.DCM_TEST_RUN}_online`);
    url = dedicated.url;
    drop = dedicated.drop;
    database = await openDatabase({ databaseUrl: url, dataDir: null });
  });
  afterAll(async () => {
    await database?.close();
    await drop();
  });

  it('keeps every row written before and while it runs, and the writes then go to the partitioned tables', async () => {
    await migrate(database, { through: '0135' });
    const { db } = database;
    await sql`INSERT INTO organizations (id, name) VALUES (${clinicId}, 'Org')`.execute(db);
    await sql`INSERT INTO clinics (id, organization_id, name, mode) VALUES (${clinicId}, ${clinicId}, 'Clinica', 'live')`.execute(db);
    await sql`INSERT INTO access_log_resources (id, clinic_id, resource_type, resource_ids)
      VALUES (access_log_resources_id(${clinicId}, 'patient', ARRAY[${clinicId}::uuid]), ${clinicId}, 'patient', ARRAY[${clinicId}::uuid])`.execute(db);
    const seeded = 20_000;
    await sql`INSERT INTO access_log (id, clinic_id, fields, at, resources_id)
      SELECT gen_random_uuid(), ${clinicId}, ARRAY['firstName'], now() - make_interval(mins => g), access_log_resources_id(${clinicId}, 'patient', ARRAY[${clinicId}::uuid])
      FROM generate_series(1, ${seeded}) g`.execute(db);
    await sql`INSERT INTO events (id, clinic_id, type, scope, livemode, data, created_at)
      SELECT gen_random_uuid(), ${clinicId}, 'patient.created', 'patients:read', true, '{}', now() - make_interval(mins => g)
      FROM generate_series(1, ${seeded}) g`.execute(db);

    // The previous version: a row of the log (with a new list of resources) and an event, again and again.
    const writer = new pg.Client({ connectionString: url });
    await writer.connect();
    let running = true;
    let rounds = 0;
    const writing = (async () => {
      while (running) {
        await writer.query(
          `WITH list AS (SELECT gen_random_uuid() AS patient),
           stored AS (INSERT INTO access_log_resources (id, clinic_id, resource_type, resource_ids)
                      SELECT access_log_resources_id($1, 'patient', ARRAY[patient]), $1, 'patient', ARRAY[patient] FROM list ON CONFLICT (id) DO NOTHING)
           INSERT INTO access_log (id, clinic_id, fields, resources_id) SELECT gen_random_uuid(), $1, ARRAY['firstName'], access_log_resources_id($1, 'patient', ARRAY[patient]) FROM list`,
          [clinicId],
        );
        await writer.query(
          `INSERT INTO events (id, clinic_id, type, scope, livemode, data) VALUES (gen_random_uuid(), $1, 'patient.created', 'patients:read', true, '{}')`,
          [clinicId],
        );
        rounds++;
      }
    })();
    try {
      await new Promise((r) => setTimeout(r, 100));
      const before = rounds;
      expect(await migrate(database, { through: '0137' })).toEqual(['0136_access_log_by_month.sql', '0137_events_by_month.sql']);
      const during = rounds - before;
      await new Promise((r) => setTimeout(r, 100));
      running = false;
      await writing;
      // Writes went on through the upgrade, and the last ones after it.
      expect(during).toBeGreaterThan(0);
    } finally {
      running = false;
      await writing.catch(() => {});
      await writer.end();
    }
    const counts = await sql<{ log: number; events: number; plain: number }>`
      SELECT (SELECT count(*)::int FROM access_log) AS log, (SELECT count(*)::int FROM events) AS events,
             (SELECT count(*)::int FROM pg_class WHERE relname IN ('access_log', 'events') AND relkind <> 'p') AS plain`.execute(db);
    expect(counts.rows[0]).toEqual({ log: seeded + rounds, events: seeded + rounds, plain: 0 });
    const distinct = await sql<{ n: number }>`SELECT count(DISTINCT id)::int AS n FROM access_log`.execute(db);
    expect(distinct.rows[0]!.n).toBe(seeded + rounds);
  });
});

/**
 * How long the upgrade to the tables partitioned by month takes (migrations 0136 and 0137,
 * docs/operations.md "Partitioned tables"), and how long the previous version's writes wait
 * meanwhile: `npm run bench:partition-migration [-- --rows=1000000 --months=24]`.
 *
 * In a database of its own next to DATABASE_URL's (dropped at the end): migrations up to 0135,
 * then `--rows` access-log rows and as many events spread over `--months` months (set-based SQL),
 * VACUUM ANALYZE, then the remaining migrations, timed each, while another connection writes, every
 * 10 ms, as a process of the previous version would: an access-log row naming a stored list of
 * resources, one with a new list, and an event. Prints each migration's seconds, the seconds per
 * million rows, the longest each kind of write waited (the time it was held), and checks that
 * every row, seeded or written meanwhile, is there once.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { benchArgs, machine } from './lib/harness.js';

const args = benchArgs();
const rows = Number(args.rows ?? 1_000_000);
const months = Number(args.months ?? 24);

async function admin(base: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** The writes of a process of the previous version, timed: the longest of each kind (ms) and how many rounds. */
interface Held {
  rounds: number;
  /** An access-log row naming a list of resources already stored. */
  storedList: number;
  /** An access-log row with a new list of resources, in one statement as the writer does. */
  newList: number;
  event: number;
}

/** Writes one of each kind every 10 ms until stopped. */
function writer(url: string, clinicId: string, listId: string): { stop: () => Promise<Held> } {
  const client = new pg.Client({ connectionString: url });
  let running = true;
  const held: Held = { rounds: 0, storedList: 0, newList: 0, event: 0 };
  const timed = async (kind: 'storedList' | 'newList' | 'event', text: string, values: unknown[]) => {
    const started = performance.now();
    await client.query(text, values);
    held[kind] = Math.max(held[kind], performance.now() - started);
  };
  const done = (async () => {
    await client.connect();
    while (running) {
      await timed('storedList', `INSERT INTO access_log (id, clinic_id, fields, resources_id) VALUES (gen_random_uuid(), $1, ARRAY['firstName'], $2)`, [
        clinicId,
        listId,
      ]);
      await timed(
        'newList',
        `WITH list AS (SELECT gen_random_uuid() AS patient),
         stored AS (INSERT INTO access_log_resources (id, clinic_id, resource_type, resource_ids)
                    SELECT access_log_resources_id($1, 'patient', ARRAY[patient]), $1, 'patient', ARRAY[patient] FROM list ON CONFLICT (id) DO NOTHING)
         INSERT INTO access_log (id, clinic_id, fields, resources_id) SELECT gen_random_uuid(), $1, ARRAY['firstName'], access_log_resources_id($1, 'patient', ARRAY[patient]) FROM list`,
        [clinicId],
      );
      await timed(
        'event',
        `INSERT INTO events (id, clinic_id, type, scope, livemode, data) VALUES (gen_random_uuid(), $1, 'patient.created', 'patients:read', true, '{}')`,
        [clinicId],
      );
      held.rounds++;
      await new Promise((r) => setTimeout(r, 10));
    }
    await client.end();
  })();
  return {
    stop: async () => {
      running = false;
      await done;
      return held;
    },
  };
}

async function main(): Promise<void> {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('bench:partition-migration runs on PostgreSQL: set DATABASE_URL');
  const name = `dcm_partmig_${randomBytes(3).toString('hex')}`;
  await admin(base, `CREATE DATABASE ${name}`);
  const u = new URL(base);
  u.pathname = `/${name}`;
  const url = u.toString();
  const database = await openDatabase({ databaseUrl: url, dataDir: null });
  try {
    console.log(`${machine()}\n${rows} access-log rows and ${rows} events over ${months} months`);
    await migrate(database, { through: '0135' });
    const { db } = database;
    const clinicId = '00000000-0000-4000-8000-000000000001';
    await sql`INSERT INTO organizations (id, name) VALUES (${clinicId}, 'Org')`.execute(db);
    await sql`INSERT INTO clinics (id, organization_id, name, mode) VALUES (${clinicId}, ${clinicId}, 'Clinica', 'live')`.execute(db);
    // 1,000 lists of resources, as many clinics' pages would make.
    await sql`INSERT INTO access_log_resources (id, clinic_id, resource_type, resource_ids)
      SELECT access_log_resources_id(${clinicId}, 'patient', ARRAY[md5('p' || g)::uuid]), ${clinicId}, 'patient', ARRAY[md5('p' || g)::uuid]
      FROM generate_series(1, 1000) g`.execute(db);
    let started = Date.now();
    const span = sql`make_interval(secs => ((g::bigint * 7919) % (${months} * 30 * 86400))::int)`;
    await sql`INSERT INTO access_log (id, clinic_id, api_key_id, request_id, fields, at, resources_id)
      SELECT gen_random_uuid(), ${clinicId}, NULL, 'req_' || g, ARRAY['firstName','lastName','phone'], now() - ${span},
             access_log_resources_id(${clinicId}, 'patient', ARRAY[md5('p' || (1 + g % 1000))::uuid])
      FROM generate_series(1, ${rows}) g`.execute(db);
    await sql`INSERT INTO events (id, clinic_id, type, facility_id, scope, livemode, data, created_at)
      SELECT gen_random_uuid(), ${clinicId}, 'appointment.created', NULL, 'appointments:read', true, jsonb_build_object('id', gen_random_uuid()), now() - ${span}
      FROM generate_series(1, ${rows}) g`.execute(db);
    await sql`VACUUM ANALYZE access_log`.execute(db);
    await sql`VACUUM ANALYZE events`.execute(db);
    console.log(`seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const listId = (await sql<{ id: string }>`SELECT id FROM access_log_resources LIMIT 1`.execute(db)).rows[0]!.id;

    const w = writer(url, clinicId, listId);
    await new Promise((r) => setTimeout(r, 500));
    const timings: string[] = [];
    for (const through of ['0136', '0137']) {
      started = Date.now();
      const applied = await migrate(database, { through });
      const seconds = (Date.now() - started) / 1000;
      timings.push(`${applied.join(', ')}: ${seconds.toFixed(1)} s, ${(seconds / (rows / 1_000_000)).toFixed(1)} s per million rows`);
    }
    await new Promise((r) => setTimeout(r, 500));
    const held = await w.stop();
    for (const line of timings) console.log(line);
    console.log(
      `previous version's writes meanwhile: ${held.rounds} rounds; the longest wait: access-log row naming a stored list ${held.storedList.toFixed(0)} ms, ` +
        `with a new list ${held.newList.toFixed(0)} ms, event ${held.event.toFixed(0)} ms`,
    );
    const counts = await sql<{
      log: number;
      events: number;
    }>`SELECT (SELECT count(*)::int FROM access_log) AS log, (SELECT count(*)::int FROM events) AS events`.execute(db);
    const expected = { log: rows + 2 * held.rounds, events: rows + held.rounds };
    console.log(`rows after: access_log ${counts.rows[0]!.log} (expected ${expected.log}), events ${counts.rows[0]!.events} (expected ${expected.events})`);
    if (counts.rows[0]!.log !== expected.log || counts.rows[0]!.events !== expected.events) throw new Error('rows were lost or doubled');
  } finally {
    await database.close();
    await admin(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

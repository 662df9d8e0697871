/**
 * Migration 0050 moves the access log's lists of resources into access_log_resources: rows
 * written before it, and rows a process of the previous version writes after it, read the same
 * through the view access_log_entries, and a list named by several rows is stored once, under
 * the id the writer computes for it.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.js';
import { migrate } from '../../../src/db/migrate.js';
import { resourcesIdOf } from '../../../src/modules/access-log/resources.js';
import { emptyTestDatabase } from '../../helpers/databases.js';

let database: Database;
let closeDatabase = async () => {};
beforeAll(async () => {
  const opened = await emptyTestDatabase('migration');
  ({ database, close: closeDatabase } = opened);
});
afterAll(() => closeDatabase());

it('converts the rows written before it and in the old shape after it, one stored list per distinct list', async () => {
  await migrate(database, { through: '0040' });
  const organizationId = randomUUID();
  const clinicId = randomUUID();
  await sql`INSERT INTO organizations (id, name) VALUES (${organizationId}, 'Org')`.execute(database.db);
  await sql`INSERT INTO clinics (id, organization_id, name, mode) VALUES (${clinicId}, ${organizationId}, 'Clinica', 'live')`.execute(database.db);
  const page = [randomUUID(), randomUUID().toUpperCase()];
  const call = [randomUUID()];
  const old = [
    { request: 'old-1', type: 'appointment', ids: page },
    { request: 'old-2', type: 'appointment', ids: page },
    { request: 'old-3', type: 'call', ids: call },
  ];
  for (const o of old) {
    await sql`INSERT INTO access_log (id, clinic_id, request_id, resource_type, resource_ids, fields)
      VALUES (${randomUUID()}, ${clinicId}, ${o.request}, ${o.type}, ${o.ids}::uuid[], ARRAY['title'])`.execute(database.db);
  }

  expect(await migrate(database)).toContain('0050_access_log_resources.sql');
  // A process of the previous version, during a rolling upgrade, still writes the old shape.
  await sql`INSERT INTO access_log (id, clinic_id, request_id, resource_type, resource_ids, fields)
    VALUES (${randomUUID()}, ${clinicId}, 'old-4', 'call', ${call}::uuid[], ARRAY['title'])`.execute(database.db);
  old.push({ request: 'old-4', type: 'call', ids: call });

  const entries = await sql<{ request_id: string; resource_type: string; resource_ids: string[]; resources_id: string }>`
    SELECT e.request_id, e.resource_type, e.resource_ids, l.resources_id
    FROM access_log_entries e JOIN access_log l ON l.id = e.id ORDER BY e.request_id`.execute(database.db);
  expect(entries.rows).toEqual(
    old.map((o) => ({
      request_id: o.request,
      resource_type: o.type,
      resource_ids: o.ids.map((id) => id.toLowerCase()),
      resources_id: resourcesIdOf(clinicId, o.type, o.ids),
    })),
  );
  const stored = await sql<{ n: number }>`SELECT count(*)::int AS n FROM access_log_resources`.execute(database.db);
  expect(stored.rows[0]!.n).toBe(2);
  const leftInOldColumns = await sql<{
    n: number;
  }>`SELECT count(*)::int AS n FROM access_log WHERE resource_ids IS NOT NULL OR resource_type IS NOT NULL`.execute(database.db);
  expect(leftInOldColumns.rows[0]!.n).toBe(0);
});

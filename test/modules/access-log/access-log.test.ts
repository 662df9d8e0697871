/**
 * The access log's group commit (src/modules/access-log/writer.ts) against the real server and
 * database: concurrent reads share statements, yet each response comes only after its own
 * entry is committed, and a statement that fails fails the requests whose entries it held.
 * The failures are real database errors (a CHECK constraint, a renamed table) in this file's
 * own database.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessLogWriter } from '../../../src/modules/access-log/writer.js';
import { insertPatient } from '../../helpers/seed.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let tenant: Tenant;
let appointmentId: string;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
  const patientId = await insertPatient(server, tenant);
  const start = new Date(Date.now() + 86_400_000);
  start.setUTCHours(9, 0, 0, 0);
  const res = await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/appointments`, {
    patientId,
    start: start.toISOString(),
    end: new Date(start.getTime() + 30 * 60_000).toISOString(),
    title: 'Controllo',
  });
  expect(res.status, res.text).toBe(201);
  appointmentId = res.body.id;
});
afterAll(() => server.close());

/**
 * A typed read of the appointment (the project's client, generated OpenAPI types, no retries)
 * that does not throw: `{ data, error, response }`, a 200 or the error envelope of a 500.
 */
const readAppointment = (requestId: string) =>
  server.api(tenant.token).raw.GET('/appointments/{id}', { params: { path: { id: appointmentId } }, headers: { 'x-request-id': requestId } });

const entriesOf = (requestId: string) => server.ctx.db.selectFrom('access_log_entries').selectAll().where('request_id', '=', requestId).execute();

/**
 * Fires the reads at once; as each response arrives (not after all of them), checks that a 200
 * already has exactly its entry committed and an error has none. Returns the responses.
 */
async function concurrentReads(requestIds: string[]) {
  return Promise.all(
    requestIds.map(async (requestId) => {
      const res = await readAppointment(requestId);
      const entries = await entriesOf(requestId);
      if (res.response.status === 200) {
        expect(entries, requestId).toHaveLength(1);
        expect(entries[0]).toMatchObject({ clinic_id: tenant.clinicId, api_key_id: tenant.keyId, resource_type: 'appointment', resource_ids: [appointmentId] });
        expect(entries[0]!.fields).toContain('title');
      } else {
        expect(entries, requestId).toEqual([]);
      }
      return { requestId, res };
    }),
  );
}

describe('access log writer', () => {
  it('commits each concurrent read’s entry before its response, in fewer statements than requests', async () => {
    // 50 open keep-alive connections first (a read that logs nothing), so the burst's requests
    // reach the server together, as from 50 busy clients, rather than one connection set-up apart.
    const api = server.api(tenant.token);
    await Promise.all(Array.from({ length: 50 }, () => api.call('getFacility', { params: { path: { id: tenant.facilityIds[0] } } })));
    const before = { ...server.ctx.accessLog.stats };
    const ids = Array.from({ length: 50 }, (_, i) => `burst-${i}`);
    const results = await concurrentReads(ids);
    for (const { requestId, res } of results) expect(res.response.status, `${requestId}: ${JSON.stringify(res.error)}`).toBe(200);
    const after = server.ctx.accessLog.stats;
    expect(after.rows - before.rows).toBe(50);
    expect(after.failures - before.failures).toBe(0);
    const statements = after.flushes - before.flushes;
    expect(statements).toBeGreaterThan(0);
    expect(statements).toBeLessThan(50);
  });

  it('puts the entries of one tick in one statement, at most maxRows rows each, and skips empty reads', async () => {
    const writer = new AccessLogWriter(server.ctx.db, 3);
    const auth = await server.ctx.authenticator.authenticate(`Bearer ${tenant.token}`);
    const ids = Array.from({ length: 7 }, (_, i) => `tick-${i}`);
    await Promise.all([
      ...ids.map((requestId) => writer.record(auth, { resourceType: 'appointment', resourceIds: [appointmentId], fields: ['title'], requestId })),
      writer.record(auth, { resourceType: 'appointment', resourceIds: [], fields: ['title'], requestId: 'tick-no-ids' }),
      writer.record(auth, { resourceType: 'appointment', resourceIds: [appointmentId], fields: [], requestId: 'tick-no-fields' }),
    ]);
    expect(writer.stats).toEqual({ flushes: 3, rows: 7, failures: 0 });
    for (const requestId of ids) expect(await entriesOf(requestId)).toHaveLength(1);
    expect(await entriesOf('tick-no-ids')).toEqual([]);
    expect(await entriesOf('tick-no-fields')).toEqual([]);
    await writer.close();
    await expect(writer.record(auth, { resourceType: 'appointment', resourceIds: [appointmentId], fields: ['title'] })).rejects.toThrow(/closed/);
  });

  it('fails the reads whose statement failed with the error envelope, and commits none of their entries', async () => {
    // A real constraint violation for some entries; the others share statements with them or not.
    await sql`ALTER TABLE access_log ADD CONSTRAINT access_log_test_refuse CHECK (request_id NOT LIKE 'refused-%')`.execute(server.ctx.db);
    try {
      const before = { ...server.ctx.accessLog.stats };
      const ids = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? `refused-${i}` : `mixed-${i}`));
      const results = await concurrentReads(ids);
      for (const { requestId, res } of results) {
        if (requestId.startsWith('refused-')) expect(res.response.status, requestId).toBe(500);
        if (res.response.status !== 200) {
          expect(res.response.status).toBe(500);
          expect(res.error).toMatchObject({ error: { code: 'internal_error', requestId } });
          expect(res.error?.error).not.toHaveProperty('title');
        }
      }
      expect(server.ctx.accessLog.stats.failures).toBeGreaterThan(before.failures);
    } finally {
      await sql`ALTER TABLE access_log DROP CONSTRAINT access_log_test_refuse`.execute(server.ctx.db);
    }
  });

  it('fails reads while the table is missing and writes again once it is back', async () => {
    await sql`ALTER TABLE access_log RENAME TO access_log_away`.execute(server.ctx.db);
    let results;
    try {
      results = await Promise.all(['away-1', 'away-2', 'away-3'].map((requestId) => readAppointment(requestId)));
    } finally {
      await sql`ALTER TABLE access_log_away RENAME TO access_log`.execute(server.ctx.db);
    }
    for (const res of results) {
      expect(res.response.status).toBe(500);
      expect(res.error?.error.code).toBe('internal_error');
    }
    const back = await concurrentReads(['back-1']);
    expect(back[0]!.res.response.status).toBe(200);
  });
});

describe('access log lists of resources', () => {
  const listedRead = async (requestId: string) =>
    (await server.api(tenant.token).callWithResponse('listAppointments', { params: { query: { limit: 50 } }, headers: { 'x-request-id': requestId } }))
      .response;
  const rowsOf = (requestId: string) => server.ctx.db.selectFrom('access_log').selectAll().where('request_id', '=', requestId).execute();

  it('stores a list read again once, and each read names it', async () => {
    expect((await listedRead('list-once-1')).status).toBe(200);
    expect((await listedRead('list-once-2')).status).toBe(200);
    const [first] = await rowsOf('list-once-1');
    const [second] = await rowsOf('list-once-2');
    expect(second!.resources_id).toBe(first!.resources_id);
    const stored = await server.ctx.db.selectFrom('access_log_resources').selectAll().where('id', '=', first!.resources_id).execute();
    expect(stored).toEqual([{ id: first!.resources_id, clinic_id: tenant.clinicId, resource_type: 'appointment', resource_ids: [appointmentId] }]);
    // Its id is the SQL function's of the same content, so rows converted by the migration and rows written since name one list.
    const derived = await sql<{
      id: string;
    }>`SELECT access_log_resources_id(${tenant.clinicId}::uuid, 'appointment', ARRAY[${appointmentId}]::uuid[]) AS id`.execute(server.ctx.db);
    expect(derived.rows[0]!.id).toBe(first!.resources_id);
    // The same ids as another type of resource are another list.
    const auth = await server.ctx.authenticator.authenticate(`Bearer ${tenant.token}`);
    await server.ctx.accessLog.record(auth, { resourceType: 'call', resourceIds: [appointmentId], fields: ['transcript'], requestId: 'list-other' });
    const [otherRow] = await rowsOf('list-other');
    expect(otherRow!.resources_id).not.toBe(first!.resources_id);
    expect(await entriesOf('list-other')).toMatchObject([{ resource_type: 'call', resource_ids: [appointmentId], fields: ['transcript'] }]);
  });

  it('writes a remembered list again when the table no longer holds it', async () => {
    expect((await listedRead('list-lost-1')).status).toBe(200);
    const [row] = await rowsOf('list-lost-1');
    // The table loses the list (emptied or restored by hand) while this process remembers it as stored.
    await server.ctx.db.deleteFrom('access_log').where('resources_id', '=', row!.resources_id).execute();
    await server.ctx.db.deleteFrom('access_log_resources').where('id', '=', row!.resources_id).execute();
    const failures = server.ctx.accessLog.stats.failures;
    expect((await listedRead('list-lost-2')).status).toBe(200);
    expect(server.ctx.accessLog.stats.failures).toBe(failures);
    expect(await entriesOf('list-lost-2')).toMatchObject([{ resource_type: 'appointment', resource_ids: [appointmentId] }]);
  });
});

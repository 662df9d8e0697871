/**
 * The read caches (src/db/read-cache.ts) and the change feed that drops them
 * (src/db/change-feed.ts, 0040_change_feed.sql): GET /v1/facilities/{id} and the pages of
 * GET /v1/appointments are served from memory until a change of the clinic's rows commits,
 * made by anyone (this process, another process, plain SQL); a key limited to facilities
 * never gets an unrestricted key's page; while the listening connection is down nothing is
 * served from memory.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../packages/client/src/index.js';
import { refused } from '../helpers/refused.js';
import { buildApp } from '../../src/app.js';
import { createContext } from '../../src/bootstrap.js';
import type { AppContext } from '../../src/context.js';
import { insertPatient, at } from '../helpers/seed.js';
import type { Tenant } from '../helpers/factories.js';
import { ENGINE, ROOMY_LIMITS, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
});
afterAll(() => server.close());

/** Changes a facility's name without the change feed's trigger: what only a cache would hide. */
async function renameUnannounced(ctx: AppContext, facilityId: string, name: string): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await sql`SET LOCAL session_replication_role = replica`.execute(trx);
    await trx.updateTable('facilities').set({ name }).where('id', '=', facilityId).execute();
  });
}

/** Polls `read` until it returns `expected`; returns the milliseconds it took. */
async function seenWithin(read: () => Promise<unknown>, expected: unknown, limitMs = 2_000): Promise<number> {
  const start = Date.now();
  for (;;) {
    const value = await read();
    if (value === expected) return Date.now() - start;
    if (Date.now() - start > limitMs) throw new Error(`still ${JSON.stringify(value)} after ${limitMs} ms, expected ${JSON.stringify(expected)}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('GET /v1/facilities/{id} from memory', () => {
  // Typed calls (the project's client, generated OpenAPI types).
  const getFacility = (id: string, token = t.token) => server.api(token).callWithResponse('getFacility', { params: { path: { id } } });
  const name = async () => (await getFacility(t.facilityIds[1])).data.name;

  it('is served from memory, and a committed change by anyone is seen at once', async () => {
    expect(await name()).toBe('Sede Nord');
    await renameUnannounced(server.ctx, t.facilityIds[1], 'Sede Nascosta');
    // The cache answers: the trigger-less change is not seen.
    expect(await name()).toBe('Sede Nord');

    // A change through the back office of this process.
    const patched = await server.admin('PATCH', `/admin/v1/clinics/${t.clinicId}/facilities/${t.facilityIds[1]}`, { name: 'Sede Monza' });
    expect(patched.status, patched.text).toBe(200);
    expect(await seenWithin(name, 'Sede Monza')).toBeLessThan(500);
    // The cached answer carries the changed version's ETag, the one If-Match needs (spec 4).
    const read = await getFacility(t.facilityIds[1]);
    expect(read.response.headers.get('etag')).toBe(patched.headers.get('etag'));

    // A change in plain SQL, outside the service.
    await server.ctx.db.updateTable('facilities').set({ name: 'Sede Brianza' }).where('id', '=', t.facilityIds[1]).execute();
    expect(await seenWithin(name, 'Sede Brianza')).toBeLessThan(500);

    // A rolled-back change is never seen.
    await server.ctx.db
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('facilities').set({ name: 'Mai' }).where('id', '=', t.facilityIds[1]).execute();
        throw new Error('rollback');
      })
      .catch(() => {});
    expect(await name()).toBe('Sede Brianza');
  });

  it('keeps the facility limits of each key: a cached facility is still 404 to a key limited to another', async () => {
    expect((await getFacility(t.facilityIds[0])).response.status).toBe(200);
    const limited = await server.factories.key(t.clinicId, ['clinic:read'], [t.facilityIds[1]]);
    expect((await refused(getFacility(t.facilityIds[0], limited.token))).status).toBe(404);
    const other = await server.factories.tenant();
    expect((await refused(getFacility(t.facilityIds[0], other.token))).status).toBe(404);
  });
});

describe('the change feed’s tokens', () => {
  it('are bounded: past 100,000 (table, clinic) pairs they are dropped, and a dropped one is only a new token', () => {
    const feed = server.ctx.changes;
    const first = feed.token('facilities', t.clinicId);
    expect(first).not.toBeNull();
    expect(feed.token('facilities', t.clinicId)).toBe(first);
    for (let i = 0; i < 100_000; i++) feed.token('facilities', `clinic-${i}`);
    const after = feed.token('facilities', t.clinicId);
    expect(after).not.toBe(first);
    expect(feed.token('facilities', t.clinicId)).toBe(after);
  });
});

describe('pages of GET /v1/appointments from memory', () => {
  it('shows a new or changed appointment at once, and each facility scope its own page', async () => {
    const tenant = await server.factories.tenant();
    const patient = await insertPatient(server, tenant);
    const list = (token = tenant.token) => server.api(token).call('listAppointments', { params: { query: { sort: 'start' } } });
    const ids = async (token = tenant.token) => (await list(token)).data.map((a) => a.id).join(',');
    expect(await ids()).toBe('');
    const created = await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/appointments`, {
      patientId: patient,
      start: at(3, 9),
      end: at(3, 9, 30),
      facilityId: tenant.facilityIds[0],
    });
    expect(created.status, created.text).toBe(201);
    expect(await seenWithin(ids, created.body.id)).toBeLessThan(500);

    const limited = await server.factories.key(tenant.clinicId, ['appointments:read'], [tenant.facilityIds[1]]);
    expect(await ids(limited.token)).toBe('');

    const confirmed = await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/appointments/${created.body.id}/status`, { status: 'confirmed' });
    expect(confirmed.status, confirmed.text).toBe(200);
    const status = async () => (await list()).data[0]!.status;
    expect(await seenWithin(status, 'confirmed')).toBeLessThan(500);
  });

  it('writes the access log for every read, from memory or not', async () => {
    const tenant = await server.factories.tenant();
    const patient = await insertPatient(server, tenant);
    const created = await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/appointments`, {
      patientId: patient,
      start: at(3, 10),
      end: at(3, 10, 30),
      title: 'Igiene',
    });
    expect(created.status, created.text).toBe(201);
    for (const n of [1, 2, 3]) {
      const res = await server.api(tenant.token).call('listAppointments', { headers: { 'x-request-id': `cached-read-${n}` } });
      expect(res.data.map((a) => a.id)).toEqual([created.body.id]);
    }
    const log = await server.ctx.db
      .selectFrom('access_log_entries')
      .select(['request_id', 'resource_ids'])
      .where('clinic_id', '=', tenant.clinicId)
      .orderBy('at')
      .execute();
    expect(log).toEqual([1, 2, 3].map((n) => ({ request_id: `cached-read-${n}`, resource_ids: [created.body.id] })));
  });
});

describe.skipIf(ENGINE !== 'postgres')('another process, and a lost listening connection (PostgreSQL)', () => {
  let second: { ctx: AppContext; app: Awaited<ReturnType<typeof buildApp>>; url: string };

  beforeAll(async () => {
    const ctx = await createContext({ ...server.ctx.config }, { skipMigrations: true });
    const app = await buildApp({ ctx, rateLimits: ROOMY_LIMITS, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    second = { ctx, app, url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` };
  });
  afterAll(async () => {
    await second.app.close();
    await second.ctx.database.close();
  });

  // A typed client of the given process (the project's client, no retries).
  const nameIn = async (url: string) =>
    (await createClient({ baseUrl: `${url}/v1`, apiKey: t.token, retry: false }).call('getFacility', { params: { path: { id: t.facilityIds[0] } } })).name;

  it('a change committed through one process is seen at once by the other', async () => {
    const before = await nameIn(second.url);
    expect(await nameIn(second.url)).toBe(before);
    const patched = await server.admin('PATCH', `/admin/v1/clinics/${t.clinicId}/facilities/${t.facilityIds[0]}`, { name: 'Sede Duomo' });
    expect(patched.status, patched.text).toBe(200);
    expect(await seenWithin(() => nameIn(second.url), 'Sede Duomo')).toBeLessThan(500);
  });

  it('serves nothing from memory while the listening connection is down, and listens again', async () => {
    expect(second.ctx.changes.live).toBe(true);
    expect(await nameIn(second.url)).toBe('Sede Duomo');
    // The database ends the listening session (a restart or a network cut would too).
    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %dcm_changes%' AND datname = current_database()`.execute(
      server.ctx.db,
    );
    await seenWithin(async () => second.ctx.changes.live, false);
    // Not live: a change the feed cannot announce is read from the database.
    await renameUnannounced(server.ctx, t.facilityIds[0], 'Sede Senza Avviso');
    expect(await nameIn(second.url)).toBe('Sede Senza Avviso');
    // Back: live again, and caching again.
    await seenWithin(async () => second.ctx.changes.live, true, 10_000);
    expect(await nameIn(second.url)).toBe('Sede Senza Avviso');
    await renameUnannounced(server.ctx, t.facilityIds[0], 'Sede Ancora Nascosta');
    expect(await nameIn(second.url)).toBe('Sede Senza Avviso');
  });
});

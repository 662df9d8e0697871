import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeIdempotencyKeys } from '../../src/db/idempotency.js';
import type { Tenant } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { mechanismRoutes } from './mechanisms-routes.js';

let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer({ appOptions: { extraRoutes: mechanismRoutes } });
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());

async function profilesNamed(name: string): Promise<number> {
  const rows = await server.ctx.db.selectFrom('staff_profiles').select('id').where('clinic_id', '=', tenant.clinicId).where('first_name', '=', name).execute();
  return rows.length;
}

const create = (body: unknown, key: string, token = tenant.token) =>
  server.call('POST', '/v1/test-profiles', { token, body, headers: { 'idempotency-key': key } });

describe('Idempotency-Key', () => {
  it('binds a key for 24 hours only (spec: the same key within 24 hours), and the purge removes older records', async () => {
    const first = await create({ firstName: 'Giorno' }, 'k-day');
    expect(first.status).toBe(201);
    expect((await create({ firstName: 'Altro' }, 'k-day')).status).toBe(422);
    const age = (hours: number) =>
      server.ctx.db
        .updateTable('idempotency_keys')
        .set({ created_at: sql`now() - make_interval(hours => ${hours})` })
        .where('clinic_id', '=', tenant.clinicId)
        .where('idempotency_key', '=', 'k-day')
        .execute();
    // 23 hours on: still bound.
    await age(23);
    expect((await create({ firstName: 'Altro' }, 'k-day')).status).toBe(422);
    // 25 hours on: the key is free again, for another body.
    await age(25);
    const later = await create({ firstName: 'Altro' }, 'k-day');
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.id).not.toBe(first.body.id);

    await create({ firstName: 'Fresco' }, 'k-fresh');
    await age(25);
    expect(await purgeIdempotencyKeys(server.ctx.db)).toBeGreaterThanOrEqual(1);
    const left = await server.ctx.db
      .selectFrom('idempotency_keys')
      .select('idempotency_key')
      .where('clinic_id', '=', tenant.clinicId)
      .where('idempotency_key', 'in', ['k-day', 'k-fresh'])
      .execute();
    expect(left.map((r) => r.idempotency_key)).toEqual(['k-fresh']);
  });

  it('replays the first 2xx response (status, body, ETag) and does no work', async () => {
    const first = await create({ firstName: 'Anna' }, 'k-replay');
    expect(first.status).toBe(201);
    const again = await create({ firstName: 'Anna' }, 'k-replay');
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await profilesNamed('Anna')).toBe(1);
  });

  it('treats the same body with keys in another order as the same request', async () => {
    const a = await create({ firstName: 'Ordine', delayMs: 0 }, 'k-order');
    const b = await create({ delayMs: 0, firstName: 'Ordine' }, 'k-order');
    expect(b.status).toBe(201);
    expect(b.body.id).toBe(a.body.id);
  });

  it('refuses the same key with another body, another operation or another API key (422)', async () => {
    await create({ firstName: 'Bruno' }, 'k-reuse');
    const otherBody = await create({ firstName: 'Carla' }, 'k-reuse');
    expect(otherBody.status).toBe(422);
    expect(otherBody.body.error.code).toBe('idempotency_key_reused');

    const otherOperation = await server.call('POST', '/v1/test-secrets', { token: tenant.token, headers: { 'idempotency-key': 'k-reuse' } });
    expect(otherOperation.status).toBe(422);

    const otherKey = await server.factories.key(tenant.clinicId, ['patients:write']);
    const byOtherKey = await create({ firstName: 'Bruno' }, 'k-reuse', otherKey.token);
    expect(byOtherKey.status).toBe(422);
    expect(await profilesNamed('Carla')).toBe(0);
  });

  it('answers 409 idempotency_in_progress while the first request runs, and 422 to another body meanwhile', async () => {
    const slow = create({ firstName: 'Dario', delayMs: 800 }, 'k-slow');
    await new Promise((r) => setTimeout(r, 200));
    const during = await create({ firstName: 'Dario', delayMs: 800 }, 'k-slow');
    expect(during.status).toBe(409);
    expect(during.body.error.code).toBe('idempotency_in_progress');
    const otherBody = await create({ firstName: 'Diana', delayMs: 800 }, 'k-slow');
    expect(otherBody.status).toBe(422);
    expect(otherBody.body.error.code).toBe('idempotency_key_reused');
    expect((await slow).status).toBe(201);
    expect((await create({ firstName: 'Dario', delayMs: 800 }, 'k-slow')).status).toBe(201);
    expect(await profilesNamed('Dario')).toBe(1);
    expect(await profilesNamed('Diana')).toBe(0);
  });

  it('holds under many concurrent identical requests: one creation', async () => {
    const results = await Promise.all(Array.from({ length: 25 }, () => create({ firstName: 'Elena' }, 'k-burst')));
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    expect(statuses).toContain(201);
    const ids = new Set(results.filter((r) => r.status === 201).map((r) => r.body.id));
    expect(ids.size).toBe(1);
    expect(await profilesNamed('Elena')).toBe(1);
  });

  it('does not store an error: the key can be retried after a failure', async () => {
    const failed = await create({ firstName: 'Fabio', fail: true }, 'k-fail');
    expect(failed.status).toBe(409);
    const invalid = await create({ firstName: '' }, 'k-fail');
    expect(invalid.status).toBe(400);
  });

  it('does not keep a response holding a secret: its replay is 409 response_not_stored', async () => {
    const first = await server.call('POST', '/v1/test-secrets', { token: tenant.token, headers: { 'idempotency-key': 'k-secret' } });
    expect(first.status).toBe(201);
    expect(first.body.secret).toMatch(/^whsec_/);
    const replay = await server.call('POST', '/v1/test-secrets', { token: tenant.token, headers: { 'idempotency-key': 'k-secret' } });
    expect(replay.status).toBe(409);
    expect(replay.body.error.code).toBe('conflict');
    expect(replay.body.error.details.reason).toBe('response_not_stored');
    const stored = await server.ctx.db
      .selectFrom('idempotency_keys')
      .select('response_body')
      .where('idempotency_key', '=', 'k-secret')
      .executeTakeFirstOrThrow();
    expect(stored.response_body).toBeNull();
  });

  it('after a 5xx whose work committed, keeps the key: the retry is 409 response_lost and runs nothing', async () => {
    const failed = await create({ firstName: 'Lia', failOnce: 'after_commit' }, 'k-lost');
    expect(failed.status).toBe(500);
    expect(await profilesNamed('Lia')).toBe(1);
    for (let i = 0; i < 2; i++) {
      const retry = await create({ firstName: 'Lia', failOnce: 'after_commit' }, 'k-lost');
      expect(retry.status).toBe(409);
      expect(retry.body.error.code).toBe('conflict');
      expect(retry.body.error.details.reason).toBe('response_lost');
    }
    expect(await profilesNamed('Lia')).toBe(1);
    // Another body with the key is still another request.
    expect((await create({ firstName: 'Lia bis' }, 'k-lost')).status).toBe(422);
  });

  it('after a 5xx whose work rolled back, frees the key: the retry runs once', async () => {
    const failed = await create({ firstName: 'Mia', failOnce: 'in_work' }, 'k-rolled-back');
    expect(failed.status).toBe(500);
    expect(await profilesNamed('Mia')).toBe(0);
    const retry = await create({ firstName: 'Mia', failOnce: 'in_work' }, 'k-rolled-back');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await profilesNamed('Mia')).toBe(1);
    const replay = await create({ firstName: 'Mia', failOnce: 'in_work' }, 'k-rolled-back');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(retry.body.id);
  });

  it('a key whose work committed but whose holder died before recording: 409 in progress during its lease, response_lost after, never a second run', async () => {
    const first = await create({ firstName: 'Nora' }, 'k-died');
    expect(first.status).toBe(201);
    // As a holder killed between its work's COMMIT and the record of its answer leaves the row.
    const leave = (lease: string) =>
      sql`UPDATE idempotency_keys SET state = 'committed', status_code = NULL, response_body = NULL, response_headers = NULL,
            locked_until = now() + ${lease}::interval
          WHERE clinic_id = ${tenant.clinicId} AND idempotency_key = 'k-died'`.execute(server.ctx.db);
    await leave('1 minute');
    const during = await create({ firstName: 'Nora' }, 'k-died');
    expect(during.status).toBe(409);
    expect(during.body.error.code).toBe('idempotency_in_progress');
    await leave('-1 second');
    const after = await create({ firstName: 'Nora' }, 'k-died');
    expect(after.status).toBe(409);
    expect(after.body.error.details.reason).toBe('response_lost');
    expect(await profilesNamed('Nora')).toBe(1);
    // A holder that died before its work committed leaves the key to the next request after the lease (rule 4).
    await sql`UPDATE idempotency_keys SET state = 'in_progress' WHERE clinic_id = ${tenant.clinicId} AND idempotency_key = 'k-died'`.execute(server.ctx.db);
    expect((await create({ firstName: 'Nora' }, 'k-died')).status).toBe(201);
    expect(await profilesNamed('Nora')).toBe(2);
  });

  it('refuses a key longer than 255 characters with 400 naming the header', async () => {
    const ok = await create({ firstName: 'Gino' }, 'x'.repeat(255));
    expect(ok.status).toBe(201);
    const long = await create({ firstName: 'Gino' }, 'x'.repeat(256));
    expect(long.status).toBe(400);
    expect(long.body.error.details.in).toBe('header');
    expect(long.body.error.details.issues[0].path).toBe('Idempotency-Key');
  });

  it('keeps keys per clinic: another clinic may use the same key', async () => {
    const other = await server.factories.tenant();
    await create({ firstName: 'Ivo' }, 'k-shared');
    const res = await create({ firstName: 'Ivo' }, 'k-shared', other.token);
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('routes declared idempotent', () => {
  it('run their work on request.db, whose transactions record in the key whether they committed (IDEMPOTENCY.md, rule 5)', () => {
    const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/http/routes');
    const files = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    let routes = 0;
    for (const file of files) {
      const text = fs.readFileSync(path.join(dir, file), 'utf8');
      // Each registration, from its `app.<method>(` to the next one.
      for (const route of text.split(/\n\s*app\.(?:get|post|put|patch|delete)\(/).slice(1)) {
        if (!/idempotent: (true|'secret')/.test(route)) continue;
        routes += 1;
        const handler = route.slice(route.search(/async \(request/));
        expect(handler, `${file}: the handler of an idempotent route`).toMatch(/\brequest\.db\b/);
        expect(handler, `${file}: the handler of an idempotent route`).not.toMatch(/\bctx\.db\b|\((db|deps),/);
      }
    }
    expect(routes).toBe(17);
  });
});

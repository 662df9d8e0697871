/**
 * Routes that exercise the shared mechanisms (idempotency, If-Match, cursors) on a real
 * table before any resource uses them: they create and update staff profiles.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { Type } from 'typebox';
import type { AppContext } from '../../src/context.js';
import { decodeCursor, encodeCursor, pageOf } from '../../src/core/cursor.js';
import { ApiError } from '../../src/core/errors.js';
import { expectedVersion, setEtag } from '../../src/http/etag.js';
import { versionMismatch } from '../../src/core/version.js';
import { after } from '../../src/db/keyset.js';
import { Cursor, IdParams, Limit } from '../../src/core/schemas.js';
import type { App } from '../../src/http/types.js';

/** Keys whose request failed once on purpose (`failOnce`): their next run does not fail. */
const failedOnce = new Set<string>();

export function mechanismRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/v1/test-profiles',
    {
      schema: {
        operationId: 'testCreateProfile',
        body: Type.Object(
          {
            firstName: Type.String({ minLength: 1, maxLength: 100 }),
            delayMs: Type.Optional(Type.Integer({ maximum: 5000 })),
            fail: Type.Optional(Type.Boolean()),
            // A fault (a 500) the first time a key is sent: inside the work's transaction (rolled
            // back), or after it committed.
            failOnce: Type.Optional(Type.Union([Type.Literal('in_work'), Type.Literal('after_commit')])),
          },
          { additionalProperties: false },
        ),
      },
      config: { scopes: ['patients:write'], idempotent: true, reasons: { conflict: ['asked_to_fail'] }, bodyIssues: false },
    },
    async (request, reply) => {
      if (request.body.delayMs) await new Promise((r) => setTimeout(r, request.body.delayMs));
      if (request.body.fail) throw ApiError.conflict('asked_to_fail');
      const once = `${request.auth.clinicId} ${String(request.headers['idempotency-key'])}`;
      const fault = request.body.failOnce && !failedOnce.has(once) ? (failedOnce.add(once), request.body.failOnce) : null;
      const row = await request.db.transaction().execute(async (trx) => {
        const inserted = await trx
          .insertInto('staff_profiles')
          .values({ id: randomUUID(), clinic_id: request.auth.clinicId, first_name: request.body.firstName, last_name: 'Test' })
          .returning(['id', 'first_name as firstName'])
          .executeTakeFirstOrThrow();
        if (fault === 'in_work') throw new Error('a fault inside the work');
        return inserted;
      });
      if (fault === 'after_commit') throw new Error('a fault after the work committed');
      setEtag(reply, 1);
      return reply.status(201).send(row);
    },
  );

  // A 409 reason the route does not declare in config.reasons (src/http/plugins/errors.ts).
  app.get('/v1/test-undeclared-reason', { schema: { operationId: 'testUndeclaredReason' }, config: { scopes: ['clinic:read'] } }, async () => {
    throw ApiError.conflict('never_declared');
  });

  app.get('/v1/test-boom', { schema: { operationId: 'testBoom' }, config: { scopes: ['clinic:read'] } }, async () => {
    throw new Error('secret detail of a bug');
  });

  app.post(
    '/v1/test-secrets',
    {
      schema: { operationId: 'testCreateSecret' },
      config: { scopes: ['patients:write'], idempotent: 'secret' },
    },
    async (_request, reply) => reply.status(201).send({ secret: `whsec_${randomUUID()}` }),
  );

  app.patch(
    '/v1/test-facilities/:id',
    {
      schema: {
        operationId: 'testRenameFacility',
        params: IdParams,
        body: Type.Object({ name: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
      },
      config: { scopes: ['clinic:read'], bodyIssues: false },
    },
    async (request, reply) => {
      const expected = expectedVersion(request);
      let q = ctx.db
        .updateTable('facilities')
        .set({ name: request.body.name, version: sql`version + 1`, updated_at: sql`now()` })
        .where('id', '=', request.params.id)
        .where('clinic_id', '=', request.auth.clinicId);
      if (expected !== null) q = q.where('version', '=', expected);
      const row = await q.returning(['id', 'name', 'version']).executeTakeFirst();
      if (!row) {
        const exists = await ctx.db
          .selectFrom('facilities')
          .select('id')
          .where('id', '=', request.params.id)
          .where('clinic_id', '=', request.auth.clinicId)
          .executeTakeFirst();
        throw exists ? versionMismatch() : ApiError.notFound();
      }
      setEtag(reply, row.version);
      return { id: row.id, name: row.name };
    },
  );

  app.get(
    '/v1/test-profiles',
    {
      schema: {
        operationId: 'testListProfiles',
        querystring: Type.Object(
          { limit: Type.Optional(Limit(200, 50)), cursor: Type.Optional(Cursor()), role: Type.Optional(Type.String()) },
          { additionalProperties: false },
        ),
      },
      config: { scopes: ['patients:read'] },
    },
    async (request) => {
      const { limit = 50, cursor, role = '' } = request.query;
      const scope = `test-profiles:${request.auth.clinicId}:${role}`;
      let q = ctx.db.selectFrom('staff_profiles').select(['id', 'first_name as firstName', 'updated_at']).where('clinic_id', '=', request.auth.clinicId);
      if (role) q = q.where('role', '=', role);
      if (cursor) {
        const [at, id] = decodeCursor(ctx.cursorSecret, scope, cursor);
        q = q.where(after(['updated_at', 'id'], [at, id]));
      }
      const rows = await q
        .orderBy('updated_at')
        .orderBy('id')
        .limit(limit + 1)
        .execute();
      const page = pageOf(rows, limit, (r) => encodeCursor(ctx.cursorSecret, scope, [r.updated_at.toISOString(), r.id]));
      return { data: page.items.map((r) => ({ id: r.id, firstName: r.firstName })), nextCursor: page.nextCursor };
    },
  );
}

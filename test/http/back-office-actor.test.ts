/**
 * The back office builds its caller once, like /v1: its gate builds the clinic's `Actor` for
 * every route that acts in the clinic of its path (`config.clinicActor`), and the handlers only
 * read `request.actor`. Which routes get one is decided by the route the router matched.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actorEnvironment } from '../../src/context.js';
import { ClinicParams } from '../../src/core/schemas.js';
import { registerPlane, requirePlanes, RouteWithoutGateError } from '../../src/http/planes.js';
import { adminGate } from '../../src/http/plugins/admin-auth.js';
import { registerErrorHandling } from '../../src/http/plugins/errors.js';
import type { Tenant } from '../helpers/factories.js';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.js';

const adminRoutes = join(resolve(dirname(fileURLToPath(import.meta.url)), '../..'), 'src/http/routes/admin');
const UNKNOWN_CLINIC = '3f0c9a1e-6b2d-4c8e-9f1a-7d5e2b4c6a80';

let server: TestServer;
let tenant: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());

describe('the back office builds its actor once, in its gate', () => {
  it('no back-office handler builds an actor; a route reads request.actor exactly when it declares config.clinicActor', () => {
    const files = readdirSync(adminRoutes).filter((f) => f.endsWith('.ts'));
    const routes = files.flatMap((file) => {
      const source = readFileSync(join(adminRoutes, file), 'utf8');
      expect(source, file).not.toMatch(/backOfficeActor|clinics\/actor\.js/);
      return source
        .split(/(?=\n {2}app\.(?:get|post|put|patch|delete)\()/)
        .filter((block) => block.startsWith('\n  app.'))
        .map((block) => ({
          route: `${file}: ${/'([^']+)'/.exec(block)?.[1]}`,
          reads: /request\.actor\b/.test(block),
          declares: /clinicActor: true/.test(block),
        }));
    });
    expect(routes.length).toBeGreaterThan(50);
    expect(routes.filter((r) => r.declares).length).toBeGreaterThan(30);
    expect(routes.filter((r) => r.reads !== r.declares).map((r) => r.route)).toEqual([]);
  });

  it("hands the route the gate's actor: the clinic of its path, acting as the back office", async () => {
    const app = Fastify();
    requirePlanes(app, { separateAdminListener: false });
    registerErrorHandling(app, 1_000_000, actorEnvironment(server.ctx));
    const gate = adminGate({ adminToken: ADMIN_TOKEN, db: server.ctx.db, environment: actorEnvironment(server.ctx) });
    await registerPlane(app, 'admin', gate, (admin) => {
      admin.get(
        '/admin/v1/clinics/:clinicId/probe',
        {
          schema: { params: ClinicParams },
          config: { clinicActor: true },
          // The route's own hooks run after the gate's: the actor is there before the handler.
          preHandler: async (request) => void ((request as unknown as { seen: unknown }).seen = request.actor),
        },
        async (request) => ({
          sameAsHook: (request as unknown as { seen: unknown }).seen === request.actor,
          clinicId: request.actor.clinicId,
          via: request.actor.via,
          keyId: request.actor.keyId,
          facilityIds: request.actor.facilityIds,
          requestId: request.actor.requestId === request.id,
        }),
      );
      admin.get('/admin/v1/clinics/:clinicId/no-actor', { schema: { params: ClinicParams } }, async (request) => ({ actor: request.actor ?? null }));
    });
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    try {
      const ok = await app.inject({ url: `/admin/v1/clinics/${tenant.clinicId.toUpperCase()}/probe`, headers: auth });
      expect(ok.json()).toEqual({ sameAsHook: true, clinicId: tenant.clinicId, via: 'back_office', keyId: null, facilityIds: null, requestId: true });
      // A route that does not declare it reads no clinic (and answers for an unknown one, as before).
      const bare = await app.inject({ url: `/admin/v1/clinics/${UNKNOWN_CLINIC}/no-actor`, headers: auth });
      expect(bare.json()).toEqual({ actor: null });
      expect((await app.inject({ url: `/admin/v1/clinics/${UNKNOWN_CLINIC}/probe`, headers: auth })).statusCode).toBe(404);
      expect((await app.inject({ url: `/admin/v1/clinics/${tenant.clinicId}/probe` })).statusCode).toBe(401);
    } finally {
      await app.close();
    }
  });

  it('reads the clinic after validation, as each handler did: a malformed id or body is 400, an unknown clinic 404', async () => {
    expect((await server.admin('GET', `/admin/v1/clinics/${tenant.clinicId}/waitlist-settings`)).status).toBe(200);
    expect((await server.admin('GET', `/admin/v1/clinics/${UNKNOWN_CLINIC}/waitlist-settings`)).body.error.code).toBe('not_found');
    expect((await server.admin('GET', '/admin/v1/clinics/not-a-uuid/waitlist-settings')).body.error.code).toBe('invalid_request');
    const wrongBody = await server.admin('PUT', `/admin/v1/clinics/${UNKNOWN_CLINIC}/waitlist-settings`, { offerMinutes: 'soon' });
    expect(wrongBody.body.error.code).toBe('invalid_request');
    expect((await server.call('GET', `/admin/v1/clinics/${tenant.clinicId}/waitlist-settings`)).status).toBe(401);
  });

  it('stops the start when a route asks for the clinic actor outside the admin plane or without :clinicId in its path', async () => {
    for (const [plane, url] of [
      ['admin', '/admin/v1/clinics/:id/probe'],
      ['admin', '/admin/v1/probe/:clinicIdentity'],
      ['v1', '/v1/clinics/:clinicId/probe'],
      ['public', '/clinics/:clinicId/probe'],
    ] as const) {
      const app = Fastify();
      requirePlanes(app, { separateAdminListener: false });
      const config: { clinicActor: true; scopes?: [] } = plane === 'v1' ? { clinicActor: true, scopes: [] } : { clinicActor: true };
      await expect(
        registerPlane(app, plane, null, (scope) => void scope.get(url, { config }, async () => ({}))),
        `${plane} ${url}`,
      ).rejects.toThrow(RouteWithoutGateError);
      await app.close();
    }
  });
});

/**
 * The gate of the admin plane (/admin/v1 and /metrics): the deployment's ADMIN_TOKEN as a
 * bearer token, compared in constant time. The plane is mounted only when a token is set.
 *
 * The back office acts as the clinic's own staff on the clinic its path names. A route that
 * acts so declares `config.clinicActor`, and the gate builds its `Actor` once per request, as
 * the v1 gate does from the key: its handler reads `request.actor`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ActorEnvironment } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import type { Db } from '../../db/transaction.js';
import { backOfficeActor } from '../../modules/clinics/index.js';

interface AdminGateOptions {
  adminToken: string;
  db: Db;
  /** What every actor carries (phone region, cursor secret). */
  environment: ActorEnvironment;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

export function adminGate(options: AdminGateOptions): (scope: FastifyInstance) => void {
  const { db, environment } = options;
  // Both sides hashed to 32 bytes: timingSafeEqual needs equal lengths, and the comparison
  // then reveals nothing about the token's length either.
  const expected = digest(options.adminToken);
  return (scope) => {
    scope.addHook('onRequest', async (request) => {
      const header = request.headers.authorization;
      if (!header) throw new ApiError('unauthenticated');
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match || !timingSafeEqual(digest(match[1]!), expected)) throw new ApiError('api_key_invalid');
    });
    // After validation, not at onRequest: a malformed clinic id or body stays a 400 and is
    // refused before any read; a clinic that does not exist is then 404. The route the router
    // matched says whether it acts in a clinic (requirePlanes checks that its path names one).
    scope.addHook('preHandler', async (request) => {
      if (request.routeOptions.config.clinicActor !== true) return;
      const { clinicId } = request.params as { clinicId: string };
      request.actor = await backOfficeActor(db, clinicId, environment, request.id, request.log);
    });
  };
}

/** The back office acts on the clinic of its path: one `Actor` per request, as on /v1. */
import type { FastifyRequest } from 'fastify';
import type { Actor } from '../../../core/actor.js';
import { actorEnvironment, type AppContext } from '../../../context.js';
import { backOfficeActor } from '../../../modules/clinics/index.js';

export function clinicActor(ctx: AppContext, request: FastifyRequest, clinicId: string): Promise<Actor> {
  return backOfficeActor(ctx.db, clinicId, actorEnvironment(ctx), request.id, request.log);
}

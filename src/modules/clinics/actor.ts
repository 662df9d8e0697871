/**
 * The back office's actor: the clinic's own staff, acting on the clinic named in the path,
 * with every scope and every facility. Read once per request (a clinic that does not exist is
 * 404), so services see the same `Actor` shape as for an API key.
 */
import { ApiError } from '../../core/errors.js';
import type { Actor, ActorEnvironment, ActorLogger } from '../../core/actor.js';
import type { Db } from '../../db/transaction.js';
import { SCOPES } from '../auth/index.js';
import { clinicForActor } from './store.js';

const EVERY_SCOPE: ReadonlySet<string> = new Set(SCOPES);

export async function backOfficeActor(db: Db, clinicId: string, env: ActorEnvironment, requestId: string, log: ActorLogger): Promise<Actor> {
  const clinic = await clinicForActor(db, clinicId.toLowerCase());
  if (!clinic) throw ApiError.notFound();
  return {
    via: 'back_office',
    keyId: null,
    kind: null,
    clinicId: clinic.id,
    organizationId: clinic.organization_id,
    testMode: clinic.mode === 'test',
    scopes: EVERY_SCOPE,
    facilityIds: null,
    aiEnabled: clinic.ai_enabled,
    timeZone: clinic.timezone,
    agent: 'none',
    ...env,
    requestId,
    log,
  };
}

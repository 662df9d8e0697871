/** Meta (README.md beside this file): the key, its clinic and its budgets, as the key sees them. */
import { can, type Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import { EVENT_SCOPES, SUBSCRIBABLE_EVENT_TYPES } from '../../events/catalogue.js';
import type { Db } from '../../db/transaction.js';
import { API_VERSION, type EventTypeView, type MetaView, type RateWindowView } from './schema.js';
import { keyWithClinic } from './store.js';

/** A window as the rate limiter counted it (`key:<id>:10s`, `clinic:<id>:day`). */
interface CountedWindow {
  name: string;
  seconds: number;
  limit: number;
  remaining: number;
  resetAt: number;
}

function windowView(w: CountedWindow): RateWindowView | null {
  const scope = w.name.split(':')[0];
  if (scope !== 'key' && scope !== 'clinic') return null;
  return { scope, window: w.seconds === 86_400 ? 'day' : '10s', limit: w.limit, remaining: w.remaining, reset: w.resetAt };
}

export async function getMeta(db: Db, actor: Actor, input: { windows: readonly CountedWindow[] }): Promise<MetaView> {
  if (!actor.keyId) throw ApiError.notFound();
  const row = await keyWithClinic(db, actor.clinicId, actor.keyId);
  return {
    apiVersion: API_VERSION,
    serverTime: new Date().toISOString(),
    key: {
      id: row.id,
      name: row.name,
      kind: row.kind,
      scopes: row.scopes,
      facilityIds: row.facility_ids,
      agent: row.agent,
      createdAt: row.created_at.toISOString(),
      expiresAt: row.expires_at?.toISOString() ?? null,
    },
    clinic: { id: actor.clinicId, name: row.clinic_name, timezone: row.timezone, aiEnabled: row.ai_enabled, planActive: row.plan_active },
    rateLimits: input.windows.map(windowView).filter((w): w is RateWindowView => w !== null),
  };
}

/** The catalogue (spec 6.3) with the scope of each type and whether this key may subscribe to it. */
export function eventTypes(actor: Actor): EventTypeView[] {
  const webhooks = can(actor, 'webhooks:read');
  return SUBSCRIBABLE_EVENT_TYPES.map((type) => ({ type, scope: EVENT_SCOPES[type], subscribable: webhooks && can(actor, EVENT_SCOPES[type]) }));
}

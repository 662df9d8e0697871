/**
 * Webhook destinations (spec 2.12, 3.3, 4.10). A destination belongs to the key that created
 * it: it receives what that key can see (src/events/fan-out.ts).
 *
 * Who sees a destination: a key not limited to facilities sees every destination of its
 * clinic; a key limited to facilities sees the destinations created by keys limited to a
 * subset of its own facilities (it could not see what the others receive). Anything else is
 * `404 not_found`. Deliveries follow the visibility of their destination.
 */
import { randomUUID } from 'node:crypto';
import { EVENT_SCOPES, type EventType } from '../../events/catalogue.js';
import { ApiError } from '../../core/errors.js';
import { assertVersion } from '../../core/version.js';
import { requireScopes } from '../auth/index.js';
import { apiKeyId, type Actor } from '../../core/actor.js';
import type { AddressPolicy } from './address.js';
import { endpointBodyIssues } from './checks.js';
import { generateSecret, isStandardSecret } from './signing.js';
import type { EndpointChanges, EndpointView, EndpointWithSecret, NewEndpoint } from './schema.js';
import type { Db } from '../../db/transaction.js';
import * as store from './destination-store.js';
import type { EndpointRow, EndpointSet } from './destination-store.js';

export const MAX_ENDPOINTS_PER_CLINIC = 20;

function toEndpointView(row: EndpointRow): EndpointView {
  const expires = row.previous_secret_expires_at;
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    signatureScheme: row.signature_scheme,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    previousSecretExpiresAt: expires ? new Date(expires).toISOString() : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** webhooks:write plus the scope of every event type (403 insufficient_scope lists the missing ones). */
function requireEndpointScopes(actor: Actor, events: readonly string[]): void {
  const scopes = ['webhooks:write', ...new Set(events.map((e) => EVENT_SCOPES[e as EventType]).filter(Boolean))];
  requireScopes(actor, scopes);
}

function checkUrl(url: string, policy: AddressPolicy): void {
  const issues = endpointBodyIssues(policy)({ url });
  if (issues.length) throw ApiError.invalid('body', issues);
}

export async function createEndpoint(db: Db, actor: Actor, policy: AddressPolicy, input: NewEndpoint): Promise<EndpointWithSecret> {
  requireEndpointScopes(actor, input.events);
  checkUrl(input.url, policy);
  const secret = generateSecret();
  const row = await db.transaction().execute(async (trx) => {
    const outcome = await store.insertWithinLimit(trx, MAX_ENDPOINTS_PER_CLINIC, {
      id: randomUUID(),
      clinic_id: actor.clinicId,
      api_key_id: apiKeyId(actor),
      url: input.url,
      events: input.events,
      description: input.description ?? null,
      secret,
      signature_scheme: input.signatureScheme ?? 'service',
    });
    if (outcome.kind === 'limit_reached') {
      throw ApiError.conflict(
        'endpoint_limit',
        { limit: MAX_ENDPOINTS_PER_CLINIC },
        'Lo studio ha già 20 destinazioni webhook: eliminane una prima di crearne un’altra.',
      );
    }
    return outcome.row;
  });
  return { ...toEndpointView(row), secret };
}

async function findVisible(db: Db, actor: Actor, id: string): Promise<EndpointRow> {
  const row = await store.findVisible(db, actor, id);
  if (!row) throw ApiError.notFound();
  return row;
}

export async function getEndpoint(db: Db, actor: Actor, id: string): Promise<{ view: EndpointView; version: number; row: EndpointRow }> {
  const row = await findVisible(db, actor, id);
  return { view: toEndpointView(row), version: row.version, row };
}

export async function listEndpoints(db: Db, actor: Actor): Promise<EndpointView[]> {
  const rows = await store.listVisible(db, actor);
  return rows.map(toEndpointView);
}

export async function updateEndpoint(
  db: Db,
  actor: Actor,
  policy: AddressPolicy,
  id: string,
  changes: EndpointChanges,
  expectedVersion: number | null,
): Promise<{ view: EndpointView; version: number }> {
  const current = await findVisible(db, actor, id);
  assertVersion(expectedVersion, current.version);
  if (changes.url !== undefined || changes.events !== undefined || changes.description !== undefined) {
    requireEndpointScopes(actor, changes.events ?? current.events);
  }
  if (changes.url !== undefined) checkUrl(changes.url, policy);
  if (changes.signatureScheme === 'standard' && !isStandardSecret(current.secret)) {
    // Its secret is base64url (made before the standard scheme existed): no Standard Webhooks library decodes it.
    throw ApiError.conflict('secret_rotation_required', {}, 'Il segreto di questa destinazione va ruotato prima di passare alle firme Standard Webhooks.');
  }
  const set: EndpointSet = {};
  if (changes.url !== undefined) set.url = changes.url;
  if (changes.events !== undefined) set.events = changes.events;
  if (changes.description !== undefined) set.description = changes.description;
  if (changes.signatureScheme !== undefined) set.signature_scheme = changes.signatureScheme;
  if (changes.enabled === true) {
    set.enabled = true;
    set.disabled_reason = null;
    set.consecutive_discarded = 0;
  } else if (changes.enabled === false) {
    set.enabled = false;
    set.disabled_reason = null;
  }
  const row = await store.updateAtVersion(db, current.id, current.version, set);
  if (!row) throw ApiError.conflict('version_mismatch', {}, 'La risorsa è stata modificata dopo la tua lettura: rileggila e riprova.');
  return { view: toEndpointView(row), version: row.version };
}

export async function deleteEndpoint(db: Db, actor: Actor, id: string): Promise<void> {
  const current = await findVisible(db, actor, id);
  await store.softDelete(db, current.id);
}

export async function rotateSecret(db: Db, actor: Actor, id: string, overlapMinutes: number): Promise<EndpointWithSecret> {
  const current = await findVisible(db, actor, id);
  const secret = generateSecret();
  // In a transaction: on an idempotent request's handle it records whether it committed (src/db/IDEMPOTENCY.md, rule 5).
  const row = await db.transaction().execute((trx) => store.rotate(trx, current.id, secret, overlapMinutes > 0 ? current.secret : null, overlapMinutes));
  return { ...toEndpointView(row), secret };
}

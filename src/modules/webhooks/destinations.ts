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
import { sql, type Expression, type Selectable, type SqlBool } from 'kysely';
import type { WebhookEndpointsTable } from '../../db/tables/webhooks.js';
import { EVENT_SCOPES, type EventType } from '../../events/catalogue.js';
import { ApiError } from '../../core/errors.js';
import { assertVersion } from '../../core/version.js';
import { requireScopes } from '../auth/authenticate.js';
import { apiKeyId, type Actor } from '../../core/actor.js';
import type { AddressPolicy } from './address.js';
import { endpointBodyIssues } from './checks.js';
import { generateSecret, isStandardSecret } from './signing.js';
import type { EndpointChanges, EndpointView, EndpointWithSecret, NewEndpoint } from './schema.js';
import type { Db } from '../../db/transaction.js';

export const MAX_ENDPOINTS_PER_CLINIC = 20;

export function toEndpointView(row: Selectable<WebhookEndpointsTable>): EndpointView {
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

/** SQL condition on an endpoint alias `e`: the caller's key may see it (see the module comment). */
export function endpointVisible(actor: Pick<Actor, 'facilityIds'>, creatorKeyColumn = 'e.api_key_id'): Expression<SqlBool> {
  if (actor.facilityIds === null) return sql<SqlBool>`true`;
  return sql<SqlBool>`EXISTS (SELECT 1 FROM api_keys ck WHERE ck.id = ${sql.ref(creatorKeyColumn)}
    AND ck.facility_ids IS NOT NULL AND ck.facility_ids <@ ${[...actor.facilityIds]}::uuid[])`;
}

/** webhooks:write plus the scope of every event type (403 insufficient_scope lists the missing ones). */
export function requireEndpointScopes(actor: Actor, events: readonly string[]): void {
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
    // One creation at a time per clinic, so the limit holds under concurrent requests.
    await sql`SELECT pg_advisory_xact_lock(hashtext(${'webhook_endpoints:' + actor.clinicId}))`.execute(trx);
    const { count } = await trx
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('clinic_id', '=', actor.clinicId)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow();
    if (Number(count) >= MAX_ENDPOINTS_PER_CLINIC) {
      throw ApiError.conflict(
        'endpoint_limit',
        { limit: MAX_ENDPOINTS_PER_CLINIC },
        'Lo studio ha già 20 destinazioni webhook: eliminane una prima di crearne un’altra.',
      );
    }
    return trx
      .insertInto('webhook_endpoints')
      .values({
        id: randomUUID(),
        clinic_id: actor.clinicId,
        api_key_id: apiKeyId(actor),
        url: input.url,
        events: input.events,
        description: input.description ?? null,
        secret,
        signature_scheme: input.signatureScheme ?? 'service',
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  return { ...toEndpointView(row), secret };
}

async function findVisible(db: Db, actor: Actor, id: string): Promise<Selectable<WebhookEndpointsTable>> {
  const row = await db
    .selectFrom('webhook_endpoints as e')
    .selectAll('e')
    .where('e.id', '=', id)
    .where('e.clinic_id', '=', actor.clinicId)
    .where('e.deleted_at', 'is', null)
    .where(endpointVisible(actor))
    .executeTakeFirst();
  if (!row) throw ApiError.notFound();
  return row;
}

export async function getEndpoint(db: Db, actor: Actor, id: string): Promise<{ view: EndpointView; version: number; row: Selectable<WebhookEndpointsTable> }> {
  const row = await findVisible(db, actor, id);
  return { view: toEndpointView(row), version: row.version, row };
}

export async function listEndpoints(db: Db, actor: Actor): Promise<EndpointView[]> {
  const rows = await db
    .selectFrom('webhook_endpoints as e')
    .selectAll('e')
    .where('e.clinic_id', '=', actor.clinicId)
    .where('e.deleted_at', 'is', null)
    .where(endpointVisible(actor))
    .orderBy('e.created_at')
    .orderBy('e.id')
    .execute();
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
    // Its secret is base64url (made before issue 37): no Standard Webhooks library decodes it.
    throw ApiError.conflict('secret_rotation_required', {}, 'Il segreto di questa destinazione va ruotato prima di passare alle firme Standard Webhooks.');
  }
  const set: Record<string, unknown> = { updated_at: sql`now()`, version: sql`version + 1` };
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
  const row = await db
    .updateTable('webhook_endpoints')
    .set(set)
    .where('id', '=', current.id)
    .where('version', '=', current.version)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw ApiError.conflict('version_mismatch', {}, 'La risorsa è stata modificata dopo la tua lettura: rileggila e riprova.');
  return { view: toEndpointView(row), version: row.version };
}

export async function deleteEndpoint(db: Db, actor: Actor, id: string): Promise<void> {
  const current = await findVisible(db, actor, id);
  await db
    .updateTable('webhook_endpoints')
    .set({ deleted_at: sql`now()`, enabled: false, updated_at: sql`now()`, version: sql`version + 1` })
    .where('id', '=', current.id)
    .where('deleted_at', 'is', null)
    .execute();
}

export async function rotateSecret(db: Db, actor: Actor, id: string, overlapMinutes: number): Promise<EndpointWithSecret> {
  const current = await findVisible(db, actor, id);
  const secret = generateSecret();
  const row = await db
    .updateTable('webhook_endpoints')
    .set({
      secret,
      previous_secret: overlapMinutes > 0 ? current.secret : null,
      previous_secret_expires_at: sql`now() + make_interval(mins => ${overlapMinutes})`,
      updated_at: sql`now()`,
      version: sql`version + 1`,
    })
    .where('id', '=', current.id)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...toEndpointView(row), secret };
}

/**
 * Idempotency-Key on creations (spec 4, 8). See src/http/plugins/IDEMPOTENCY.md.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { ApiError } from '../errors.js';

export interface IdempotencyRecord {
  clinicId: string;
  key: string;
  notStored: boolean;
}

/** How long a first request owns its key before another may take it over (its holder died). */
const LEASE_MS = 60_000;
const RETENTION_HOURS = 24;
/** A record past its 24 hours: it no longer binds its key (and the purge removes it). */
const expired = () => sql<boolean>`created_at < now() - make_interval(hours => ${RETENTION_HOURS})`;
const REPLAYED_HEADERS = ['etag', 'location'];

/** Key order does not change what a body means; a canonical form hashes equal bodies equally. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The operation a key is bound to: the route the router matched, with its decoded path
 * parameters. Two spellings of one path (`/v1/patients`, `/v1//patients`, `/v1/%70atients`)
 * are one operation.
 */
function operationOf(request: FastifyRequest): string {
  const params = (request.params ?? {}) as Record<string, string>;
  const path = (request.routeOptions.url ?? '').replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  return `${request.method} ${path}`;
}

export function registerIdempotency(app: FastifyInstance, db: Kysely<DB>): void {
  app.decorateRequest('idempotency', null);

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const mode = request.routeOptions.config.idempotent;
    const key = request.headers['idempotency-key'];
    if (!mode || typeof key !== 'string') return;
    if (key.length === 0 || key.length > 255) {
      throw ApiError.invalid('header', [{ path: 'Idempotency-Key', message: 'deve contenere da 1 a 255 caratteri' }]);
    }
    const auth = request.auth;
    const operation = operationOf(request);
    const bodyHash = createHash('sha256').update(canonicalJson(request.body ?? null)).digest('hex');

    for (let attempt = 0; attempt < 3; attempt++) {
      const inserted = await db
        .insertInto('idempotency_keys')
        .values({
          clinic_id: auth.clinicId,
          idempotency_key: key,
          api_key_id: auth.keyId,
          operation,
          body_hash: bodyHash,
          state: 'in_progress',
          locked_until: new Date(Date.now() + LEASE_MS),
        })
        .onConflict((oc) => oc.columns(['clinic_id', 'idempotency_key']).doNothing())
        .returning('idempotency_key')
        .executeTakeFirst();
      if (inserted) {
        request.idempotency = { clinicId: auth.clinicId, key, notStored: mode === 'secret' };
        return;
      }

      const existing = await db
        .selectFrom('idempotency_keys')
        .selectAll()
        .select(expired().as('expired'))
        .select(sql<boolean>`locked_until < now()`.as('lease_over'))
        .where('clinic_id', '=', auth.clinicId)
        .where('idempotency_key', '=', key)
        .executeTakeFirst();
      if (!existing) continue; // deleted meanwhile (a failed first request): try again
      if (existing.expired) {
        await db
          .deleteFrom('idempotency_keys')
          .where('clinic_id', '=', auth.clinicId)
          .where('idempotency_key', '=', key)
          .where('created_at', '=', existing.created_at)
          .execute();
        continue;
      }
      if (existing.api_key_id !== auth.keyId || existing.operation !== operation || existing.body_hash !== bodyHash) {
        throw new ApiError('idempotency_key_reused');
      }
      if (existing.state === 'in_progress') {
        if (!existing.lease_over) throw new ApiError('idempotency_in_progress');
        const taken = await db
          .updateTable('idempotency_keys')
          .set({ locked_until: new Date(Date.now() + LEASE_MS) })
          .where('clinic_id', '=', auth.clinicId)
          .where('idempotency_key', '=', key)
          .where('state', '=', 'in_progress')
          .where('locked_until', '=', existing.locked_until)
          .executeTakeFirst();
        if (taken.numUpdatedRows === 0n) throw new ApiError('idempotency_in_progress');
        request.idempotency = { clinicId: auth.clinicId, key, notStored: mode === 'secret' };
        return;
      }
      if (existing.response_not_stored) {
        throw ApiError.conflict('response_not_stored', {}, 'La prima risposta conteneva un segreto mostrato una sola volta e non è stata conservata.');
      }
      reply.header('idempotent-replayed', 'true');
      for (const [name, value] of Object.entries(existing.response_headers ?? {})) reply.header(name, value);
      return reply
        .status(existing.status_code ?? 200)
        .type('application/json; charset=utf-8')
        .send(existing.response_body ?? '');
    }
    throw new ApiError('idempotency_in_progress');
  });

  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const record = request.idempotency;
    if (!record) return payload;
    request.idempotency = null;
    const where = db
      .updateTable('idempotency_keys')
      .where('clinic_id', '=', record.clinicId)
      .where('idempotency_key', '=', record.key);
    if (reply.statusCode >= 200 && reply.statusCode < 300) {
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_HEADERS) {
        const value = reply.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      await where
        .set({
          state: 'completed',
          status_code: reply.statusCode,
          response_body: record.notStored ? null : String(payload),
          response_headers: JSON.stringify(headers),
          response_not_stored: record.notStored,
        })
        .execute();
    } else {
      // Only a 2xx is repeated: after an error the key is free for a corrected retry.
      await db
        .deleteFrom('idempotency_keys')
        .where('clinic_id', '=', record.clinicId)
        .where('idempotency_key', '=', record.key)
        .execute();
    }
    return payload;
  });
}

/** Retention: idempotency records live 24 hours. */
export async function purgeIdempotencyKeys(db: Kysely<DB>): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where(expired())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

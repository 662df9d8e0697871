/**
 * Idempotency-Key on creations (spec 4, 8): the HTTP side of the store in src/db/idempotency.ts
 * (rules in src/db/IDEMPOTENCY.md). Before the handler the key is claimed or its stored 2xx
 * replayed; when the response is sent the owner's 2xx is kept, anything else frees the key.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { ApiError } from '../../core/errors.js';
import { bodyHashOf, claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey } from '../../db/idempotency.js';
import type { DB } from '../../db/schema.js';

export interface IdempotencyRecord {
  clinicId: string;
  key: string;
  notStored: boolean;
}

const REPLAYED_HEADERS = ['etag', 'location'];

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
    const { clinicId, keyId } = request.auth;
    const outcome = await claimIdempotencyKey(db, {
      clinicId,
      key,
      apiKeyId: keyId,
      operation: operationOf(request),
      bodyHash: bodyHashOf(request.body),
    });
    switch (outcome.kind) {
      case 'owned':
        request.idempotency = { clinicId, key, notStored: mode === 'secret' };
        return;
      case 'reused':
        throw new ApiError('idempotency_key_reused');
      case 'in_progress':
        throw new ApiError('idempotency_in_progress');
      case 'not_stored':
        throw ApiError.conflict('response_not_stored', {}, 'La prima risposta conteneva un segreto mostrato una sola volta e non è stata conservata.');
      case 'replay':
        reply.header('idempotent-replayed', 'true');
        for (const [name, value] of Object.entries(outcome.headers)) reply.header(name, value);
        return reply.status(outcome.statusCode).type('application/json; charset=utf-8').send(outcome.body);
    }
  });

  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const record = request.idempotency;
    if (!record) return payload;
    request.idempotency = null;
    if (reply.statusCode >= 200 && reply.statusCode < 300) {
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_HEADERS) {
        const value = reply.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      await completeIdempotencyKey(db, record.clinicId, record.key, {
        statusCode: reply.statusCode,
        body: String(payload),
        headers,
        notStored: record.notStored,
      });
    } else {
      await releaseIdempotencyKey(db, record.clinicId, record.key);
    }
    return payload;
  });
}

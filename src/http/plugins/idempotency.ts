/**
 * Idempotency-Key on creations (spec 4, 8): the HTTP side of the store in src/db/idempotency.ts
 * (rules in src/db/IDEMPOTENCY.md). Before the handler the key is claimed or its stored 2xx
 * replayed, and the owner's work gets `request.db`, whose transactions mark the key when they
 * commit; when the response is sent the owner's 2xx is kept, a 4xx frees the key, and a 5xx
 * frees it only if none of its work committed.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { ApiError } from '../../core/errors.js';
import { hasSqlState, isDatabaseUnreachable, SQLSTATE } from '../../db/errors.js';
import {
  bodyHashOf,
  claimIdempotencyKey,
  completeIdempotencyKey,
  keyedDb,
  LEASE_MS,
  releaseIdempotencyKey,
  settleIdempotencyKey,
} from '../../db/idempotency.js';
import type { DB } from '../../db/schema.js';

export interface IdempotencyRecord {
  clinicId: string;
  key: string;
  notStored: boolean;
  /** The handle the work runs on: its transactions mark the key as they commit (`keyedDb`). */
  db: Kysely<DB>;
}

const REPLAYED_HEADERS = ['etag', 'location'];
const FINISH_RETRY_MS = 250;

/**
 * Records a key's outcome once the database takes it. When the database went away between the
 * handler and the record (a primary killed, a network cut), a 2xx's answer is sent and kept as
 * soon as the database is back, and a 5xx settles the key then (freed unless its work
 * committed). Meanwhile the key stays taken (a retry gets `409 idempotency_in_progress`), so a
 * retry never runs the work a second time. Tried again within the key's lease only: after it the
 * row decides alone (IDEMPOTENCY.md, rules 4 and 5).
 */
async function finish(record: () => Promise<void>): Promise<void> {
  // The database away, or (a settle) the key's row still locked by a transaction of its work.
  const later = (error: unknown) => isDatabaseUnreachable(error) || hasSqlState(error, SQLSTATE.lockNotAvailable);
  try {
    await record();
  } catch (error) {
    if (!later(error)) throw error;
    const until = Date.now() + LEASE_MS;
    const retry = () =>
      void record().catch((again: unknown) => {
        if (later(again) && Date.now() + FINISH_RETRY_MS < until) setTimeout(retry, FINISH_RETRY_MS).unref();
      });
    setTimeout(retry, FINISH_RETRY_MS).unref();
  }
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

const RESPONSE_LOST =
  'La prima richiesta con questa Idempotency-Key è stata eseguita, ma la sua risposta è andata persa: leggi la risorsa prima di crearla di nuovo.';

export function registerIdempotency(app: FastifyInstance, db: Kysely<DB>): void {
  app.decorateRequest('idempotency', null);
  app.decorateRequest('db', {
    getter(this: FastifyRequest) {
      return this.idempotency?.db ?? db;
    },
  });

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
        request.idempotency = { clinicId, key, notStored: mode === 'secret', db: keyedDb(db, clinicId, key) };
        return;
      case 'reused':
        throw new ApiError('idempotency_key_reused');
      case 'in_progress':
        throw new ApiError('idempotency_in_progress');
      case 'not_stored':
        throw ApiError.conflict('response_not_stored', {}, 'La prima risposta conteneva un segreto mostrato una sola volta e non è stata conservata.');
      case 'lost':
        throw ApiError.conflict('response_lost', {}, RESPONSE_LOST);
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
      const response = { statusCode: reply.statusCode, body: String(payload), headers, notStored: record.notStored };
      await finish(() => completeIdempotencyKey(db, record.clinicId, record.key, response));
    } else if (reply.statusCode >= 500) {
      await finish(() => settleIdempotencyKey(db, record.clinicId, record.key));
    } else {
      await finish(() => releaseIdempotencyKey(db, record.clinicId, record.key));
    }
    return payload;
  });
}

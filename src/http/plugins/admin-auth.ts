/**
 * The gate of the admin plane (/admin/v1 and /metrics): the deployment's ADMIN_TOKEN as a
 * bearer token, compared in constant time. The plane is mounted only when a token is set.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../core/errors.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

export function adminGate(adminToken: string): (scope: FastifyInstance) => void {
  // Both sides hashed to 32 bytes: timingSafeEqual needs equal lengths, and the comparison
  // then reveals nothing about the token's length either.
  const expected = digest(adminToken);
  return (scope) => {
    scope.addHook('onRequest', async (request) => {
      const header = request.headers.authorization;
      if (!header) throw new ApiError('unauthenticated');
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match || !timingSafeEqual(digest(match[1]!), expected)) throw new ApiError('api_key_invalid');
    });
  };
}

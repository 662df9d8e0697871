/** The back-office API (/admin/v1) is for the operator: a bearer ADMIN_TOKEN, compared in constant time. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../core/errors.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

export function registerAdminAuth(app: FastifyInstance, adminToken: string | null): void {
  const expected = adminToken ? digest(adminToken) : null;
  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/admin/v1/') && request.url !== '/admin/v1') return;
    const header = request.headers.authorization;
    if (!header) throw new ApiError('unauthenticated');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!expected || !match || !timingSafeEqual(digest(match[1]!), expected)) throw new ApiError('api_key_invalid');
  });
}

/**
 * ETag and If-Match on the wire for versioned resources (src/core/version.ts). The ETag is
 * the row's version number, quoted: `"3"`; an If-Match that is not one of our ETags never matches.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { etagOf } from '../core/version.js';

export function setEtag(reply: FastifyReply, version: number): void {
  reply.header('etag', etagOf(version));
}

/**
 * The version the caller expects, from If-Match: null when no If-Match was sent,
 * -1 when it was sent but is not one of our ETags (it can never match).
 * `*` means "any version".
 */
export function expectedVersion(request: FastifyRequest): number | null {
  const header = request.headers['if-match'];
  if (header === undefined) return null;
  const value = String(header).trim();
  if (value === '*') return null;
  const m = /^(?:W\/)?"(\d{1,9})"$/.exec(value);
  return m ? Number(m[1]) : -1;
}

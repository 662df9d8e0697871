/**
 * ETag and If-Match for versioned resources. The ETag is the row's version number,
 * quoted: `"3"`. A modification given an If-Match that is not the current ETag is
 * `409 conflict`, reason `version_mismatch` (a value that cannot be an ETag never matches).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './errors.js';

export function etagOf(version: number): string {
  return `"${version}"`;
}

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

export function versionMismatch(): ApiError {
  return ApiError.conflict('version_mismatch', {}, 'La risorsa è stata modificata dopo la tua lettura: rileggila e riprova.');
}

/** Throws 409 version_mismatch when an If-Match was sent and the row is at another version. */
export function assertVersion(expected: number | null, current: number): void {
  if (expected !== null && expected !== current) throw versionMismatch();
}

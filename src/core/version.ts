/**
 * Versions of versioned resources. A row's version is its ETag, quoted (`"3"`, see
 * src/http/etag.ts). A modification that expected another version is `409 conflict`,
 * reason `version_mismatch`.
 */
import { ApiError } from './errors.js';

export function etagOf(version: number): string {
  return `"${version}"`;
}

export function versionMismatch(): ApiError {
  return ApiError.conflict('version_mismatch', {}, 'La risorsa è stata modificata dopo la tua lettura: rileggila e riprova.');
}

/** Throws 409 version_mismatch when an If-Match was sent and the row is at another version. */
export function assertVersion(expected: number | null, current: number): void {
  if (expected !== null && expected !== current) throw versionMismatch();
}

/**
 * The service's own links: HMAC-SHA256-signed, expiring, single-use. Upload links with either
 * storage driver (the s3 driver's store cannot make a presigned PUT single-use), download links
 * with the fs driver. The token carries what the link allows (an upload to one document, or a
 * download of one) and is checked before a byte is read; its nonce is claimed in
 * `document_link_uses` so a second use is refused in every process sharing the database.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../../db/transaction.js';
import { renewLinkLease } from '../link-store.js';

export interface LinkClaims {
  op: 'upload' | 'download';
  clinicId: string;
  documentId: string;
  /** Single use; for an upload, also the last part of the row's `upload_key` (storage.ts uploadKey). */
  nonce: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

/** Short field names: the token is a path segment (the router takes at most 500 characters). */
interface Packed {
  o: 'u' | 'd';
  c: string;
  d: string;
  n: string;
  e: number;
}

export const newNonce = () => randomBytes(16).toString('base64url');

export function signLink(secret: string, claims: LinkClaims): string {
  const packed: Packed = { o: claims.op === 'upload' ? 'u' : 'd', c: claims.clinicId, d: claims.documentId, n: claims.nonce, e: claims.expiresAt };
  const body = Buffer.from(JSON.stringify(packed)).toString('base64url');
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

/** The upload link of a `pending_upload` document: `PUT {linkBase}/files/upload/{token}`. */
export function uploadLinkUrl(secret: string, linkBase: string, claims: Omit<LinkClaims, 'op'>): string {
  return `${linkBase}/files/upload/${signLink(secret, { ...claims, op: 'upload' })}`;
}

type LinkCheck = { ok: true; claims: LinkClaims } | { ok: false; why: 'invalid' | 'expired' };

/** The claims of a well-signed, unexpired token of this operation. */
export function verifyLink(secret: string, token: string, op: LinkClaims['op'], now = Date.now()): LinkCheck {
  const [body, mac, extra] = token.split('.');
  if (!body || !mac || extra !== undefined) return { ok: false, why: 'invalid' };
  const expected = createHmac('sha256', secret).update(body).digest();
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, why: 'invalid' };
  let claims: LinkClaims;
  try {
    const p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Packed;
    claims = { op: p.o === 'u' ? 'upload' : 'download', clinicId: p.c, documentId: p.d, nonce: p.n, expiresAt: p.e };
  } catch {
    return { ok: false, why: 'invalid' };
  }
  if (claims.op !== op) return { ok: false, why: 'invalid' };
  if (!(claims.expiresAt > now)) return { ok: false, why: 'expired' };
  return { ok: true, claims };
}

/**
 * Keeps the claimed use of an upload link while its body streams: the lease is renewed every
 * third of it. `stop` when the upload ends, before finishing or releasing the link.
 */
export function holdLink(db: Db, claims: LinkClaims, leaseSeconds: number): { stop: () => void } {
  // A renewal that fails (the database away a moment) is retried at the next tick; the lease is
  // three ticks long.
  const renew = () => renewLinkLease(db, claims, leaseSeconds).catch(() => undefined);
  const timer = setInterval(() => void renew(), (leaseSeconds * 1000) / 3);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * The service's own links: HMAC-SHA256-signed, expiring, single-use. Upload links with either
 * storage driver (the s3 driver's store cannot make a presigned PUT single-use), download links
 * with the fs driver. The token carries what the link allows (an upload to one document, or a
 * download of one) and is checked before a byte is read; its nonce is claimed in
 * `document_link_uses` so a second use is refused in every process sharing the database.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../../db/transaction.js';

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

export type LinkCheck = { ok: true; claims: LinkClaims } | { ok: false; why: 'invalid' | 'expired' };

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
 * Claims the link's single use for `leaseSeconds`; false when it was used, or is being used by a
 * live process (its lease renewed by `holdLink`). An unfinished use whose lease lapsed (its
 * process stopped mid-upload: a crash) is taken over, so the link works again until it expires.
 */
export async function claimLink(db: Db, claims: LinkClaims, leaseSeconds: number): Promise<boolean> {
  const { rows } = await sql<{ nonce: string }>`INSERT INTO document_link_uses AS u (clinic_id, nonce, expires_at, lease_until)
    VALUES (${claims.clinicId}, ${claims.nonce}, ${new Date(claims.expiresAt)}, now() + make_interval(secs => ${leaseSeconds}))
    ON CONFLICT (clinic_id, nonce) DO UPDATE SET lease_until = excluded.lease_until
    WHERE NOT u.done AND (u.lease_until IS NULL OR u.lease_until <= now())
    RETURNING nonce`.execute(db);
  return rows.length === 1;
}

/** Whether the link's single use is taken (a HEAD looks without taking it). */
export async function linkUsed(db: Db, claims: LinkClaims): Promise<boolean> {
  const row = await db
    .selectFrom('document_link_uses')
    .select('nonce')
    .where('clinic_id', '=', claims.clinicId)
    .where('nonce', '=', claims.nonce)
    .where((eb) => eb.or([eb('done', '=', true), eb('lease_until', 'is', null), eb('lease_until', '>', sql<Date>`now()`)]))
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Keeps the claimed use of an upload link while its body streams: the lease is renewed every
 * third of it. `stop` when the upload ends, before finishing or releasing the link.
 */
export function holdLink(db: Db, claims: LinkClaims, leaseSeconds: number): { stop: () => void } {
  const renew = () =>
    db
      .updateTable('document_link_uses')
      .set({ lease_until: sql<Date>`now() + make_interval(secs => ${leaseSeconds})` })
      .where('clinic_id', '=', claims.clinicId)
      .where('nonce', '=', claims.nonce)
      .where('done', '=', false)
      .execute()
      // A renewal that fails (the database away a moment) is retried at the next tick; the
      // lease is three ticks long.
      .catch(() => undefined);
  const timer = setInterval(() => void renew(), (leaseSeconds * 1000) / 3);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** An upload that failed midway frees its link, so the caller may send the bytes again before it expires. */
export async function releaseLink(db: Db, claims: LinkClaims): Promise<void> {
  await db.deleteFrom('document_link_uses').where('clinic_id', '=', claims.clinicId).where('nonce', '=', claims.nonce).where('done', '=', false).execute();
}

export async function finishLink(db: Db, claims: LinkClaims): Promise<void> {
  await db.updateTable('document_link_uses').set({ done: true }).where('clinic_id', '=', claims.clinicId).where('nonce', '=', claims.nonce).execute();
}

/** Uses of expired links are forgotten: the expiry alone refuses them now. */
export async function purgeLinkUses(db: Db): Promise<void> {
  await db
    .deleteFrom('document_link_uses')
    .where('expires_at', '<', new Date(Date.now() - 60_000))
    .execute();
}

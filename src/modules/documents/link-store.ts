/**
 * The SQL of signed links' single uses (`document_link_uses`): claimed with a lease that an
 * upload renews while it streams, finished, released after a failure, forgotten after expiry.
 * The links themselves are signed and checked in storage/links.ts.
 */
import { sql } from 'kysely';
import type { Db } from '../../db/transaction.js';

/** What names a link's use: the clinic, the link's nonce, and when the link expires. */
interface LinkUse {
  clinicId: string;
  nonce: string;
  expiresAt: number;
}

/**
 * Claims the link's single use for `leaseSeconds`; false when it was used, or is being used by a
 * live process (its lease renewed by `holdLink`). An unfinished use whose lease lapsed (its
 * process stopped mid-upload: a crash) is taken over, so the link works again until it expires.
 */
export async function claimLink(db: Db, use: LinkUse, leaseSeconds: number): Promise<boolean> {
  const { rows } = await sql<{ nonce: string }>`INSERT INTO document_link_uses AS u (clinic_id, nonce, expires_at, lease_until)
    VALUES (${use.clinicId}, ${use.nonce}, ${new Date(use.expiresAt)}, now() + make_interval(secs => ${leaseSeconds}))
    ON CONFLICT (clinic_id, nonce) DO UPDATE SET lease_until = excluded.lease_until
    WHERE NOT u.done AND (u.lease_until IS NULL OR u.lease_until <= now())
    RETURNING nonce`.execute(db);
  return rows.length === 1;
}

/** Whether the link's single use is taken (a HEAD looks without taking it). */
export async function linkUsed(db: Db, use: LinkUse): Promise<boolean> {
  const row = await db
    .selectFrom('document_link_uses')
    .select('nonce')
    .where('clinic_id', '=', use.clinicId)
    .where('nonce', '=', use.nonce)
    .where((eb) => eb.or([eb('done', '=', true), eb('lease_until', 'is', null), eb('lease_until', '>', sql<Date>`now()`)]))
    .executeTakeFirst();
  return row !== undefined;
}

/** Renews the lease of an unfinished use (holdLink, while an upload streams). */
export async function renewLinkLease(db: Db, use: LinkUse, leaseSeconds: number): Promise<void> {
  await db
    .updateTable('document_link_uses')
    .set({ lease_until: sql<Date>`now() + make_interval(secs => ${leaseSeconds})` })
    .where('clinic_id', '=', use.clinicId)
    .where('nonce', '=', use.nonce)
    .where('done', '=', false)
    .execute();
}

/** An upload that failed midway frees its link, so the caller may send the bytes again before it expires. */
export async function releaseLink(db: Db, use: LinkUse): Promise<void> {
  await db.deleteFrom('document_link_uses').where('clinic_id', '=', use.clinicId).where('nonce', '=', use.nonce).where('done', '=', false).execute();
}

export async function finishLink(db: Db, use: LinkUse): Promise<void> {
  await db.updateTable('document_link_uses').set({ done: true }).where('clinic_id', '=', use.clinicId).where('nonce', '=', use.nonce).execute();
}

/** Uses of expired links are forgotten: the expiry alone refuses them now. */
export async function purgeLinkUses(db: Db): Promise<void> {
  await db
    .deleteFrom('document_link_uses')
    .where('expires_at', '<', new Date(Date.now() - 60_000))
    .execute();
}

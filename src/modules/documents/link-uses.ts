/**
 * The files plane's rules (src/http/routes/files.ts is their transport): a signed link is used
 * once, only on the document it was made for, and only while that document can take its bytes
 * (an upload link) or give them (a download link). The single use is kept in the database
 * (link-store.ts), so every process agrees; the signature is checked in storage/links.ts.
 */
import type { Readable } from 'node:stream';
import { ApiError } from '../../core/errors.js';
import { claimLink, finishLink, linkUsed, releaseLink } from './link-store.js';
import type { DocumentsDeps } from './runtime.js';
import { hasContent } from './service.js';
import { holdLink, type LinkClaims } from './storage/links.js';
import { uploadKey } from './storage/storage.js';
import { linkedDocument, type DocumentRow } from './store.js';
import { receiveUpload, type UploadBody } from './uploads.js';

/**
 * Takes the link's single use for this request, for DOCUMENT_LINK_LEASE_SECONDS (renewed while
 * an upload streams), before a byte of the body is read; `look` (a HEAD) only checks that it is free.
 * `403 link_used` when it was used, or is being used by a live process.
 */
export async function useLink(deps: DocumentsDeps, claims: LinkClaims, look: boolean): Promise<void> {
  const free = look ? !(await linkUsed(deps.db, claims)) : await claimLink(deps.db, claims, deps.config.linkLeaseSeconds);
  if (!free) throw ApiError.forbidden('link_used', {}, 'Il link è già stato usato.');
}

/**
 * The bytes of an upload link, received into its document: only the upload the link was made
 * for, while it waits (`403 link_used` otherwise: anything else would be bytes no row reads).
 * The link's use is held while the bytes stream (should this process stop, it lapses and the
 * link works again), released when they fail (nothing was stored: the link may be used again),
 * and finished once they are in.
 */
export async function uploadThroughLink(deps: DocumentsDeps, claims: LinkClaims, body: UploadBody): Promise<DocumentRow> {
  const row = await linkedDocument(deps.db, claims.clinicId, claims.documentId);
  if (!row || row.status !== 'pending_upload' || row.upload_key !== uploadKey(claims.clinicId, claims.documentId, claims.nonce)) {
    throw ApiError.forbidden('link_used', {}, 'Il documento non attende più questo caricamento.');
  }
  const held = holdLink(deps.db, claims, deps.config.linkLeaseSeconds);
  let done: DocumentRow;
  try {
    done = await receiveUpload(deps, row, body);
  } catch (error) {
    await releaseLink(deps.db, claims);
    throw error;
  } finally {
    held.stop();
  }
  await finishLink(deps.db, claims);
  return done;
}

/**
 * The document a download link reads and, unless `head` (which leaves the link unused), its
 * bytes, the link's use then finished. `404` when the document has no content to give.
 */
export async function downloadThroughLink(deps: DocumentsDeps, claims: LinkClaims, head: boolean): Promise<{ row: DocumentRow; bytes: Readable | null }> {
  const row = await linkedDocument(deps.db, claims.clinicId, claims.documentId);
  const readable = row !== null && hasContent(row);
  const bytes = readable && !head ? await deps.store.read(row.storage_key) : null;
  if (!row || !readable || (!head && !bytes)) throw ApiError.notFound();
  if (!head) await finishLink(deps.db, claims);
  return { row, bytes };
}

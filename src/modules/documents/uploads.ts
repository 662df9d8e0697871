/**
 * A document's bytes after its row: the upload link's body streamed and checked, an upload
 * completed (or found expired), a scan retried. Each ends in a conditional move of the row's
 * status (store.ts `settle`), so the `complete` call, the upload route and the jobs may race.
 * Network and storage calls are never made inside a transaction.
 */
import { Readable } from 'node:stream';
import { ApiError } from '../../core/errors.js';
import { Inspector, inspect, verdict, type Inspected } from './checks.js';
import type { DocumentsDeps } from './runtime.js';
import { ScannerUnavailableError } from './scanner/scanner.js';
import type { RejectedReason } from './schema.js';
import * as store from './store.js';
import type { DocumentChanges, DocumentRow } from './store.js';

export interface Outcome {
  status: 'available' | 'pending_scan' | 'rejected';
  rejected_reason: RejectedReason | null;
  scan_result: 'not_scanned' | 'pending' | 'clean' | 'infected';
  scan_signature: string | null;
}

export const rejected = (reason: RejectedReason, scan: Outcome['scan_result'] = 'not_scanned', signature: string | null = null): Outcome => ({
  status: 'rejected',
  rejected_reason: reason,
  scan_result: scan,
  scan_signature: signature,
});

/** Scans the stored bytes: clean or no scanner -> available; malware -> rejected; no answer -> pending_scan. */
export async function scanStored(deps: DocumentsDeps, key: string): Promise<Outcome> {
  if (deps.scanner.kind === 'none') return { status: 'available', rejected_reason: null, scan_result: 'not_scanned', scan_signature: null };
  const bytes = await deps.store.read(key);
  if (!bytes) throw new Error(`stored bytes missing under ${key}`);
  try {
    const found = await deps.scanner.scan(bytes);
    if (found.infected) return rejected('malware', 'infected', found.signature);
    return { status: 'available', rejected_reason: null, scan_result: 'clean', scan_signature: null };
  } catch (error) {
    if (error instanceof ScannerUnavailableError) return { status: 'pending_scan', rejected_reason: null, scan_result: 'pending', scan_signature: null };
    throw error;
  }
}

function outcomeChanges(outcome: Outcome): DocumentChanges {
  return {
    ...outcome,
    addScanAttempts: outcome.scan_result === 'not_scanned' ? 0 : 1,
    scanned_at: outcome.scan_result === 'clean' || outcome.scan_result === 'infected' ? new Date() : null,
    ...(outcome.status === 'rejected' ? { purged_at: new Date() } : {}),
  };
}

/**
 * Checks the uploaded bytes of a `pending_upload` document, read back from under its key (the
 * `complete` call, and the job that finishes uploads nobody completed: a process that stopped
 * between storing an upload's bytes and settling its row). Any other status: the row as it is.
 * No bytes, or the part of an interrupted upload: `upload_expired` once the link has expired,
 * else 409 `upload_missing`.
 */
export async function finishUpload(deps: DocumentsDeps, row: DocumentRow): Promise<DocumentRow> {
  if (row.status !== 'pending_upload') return row;
  const bytes = await deps.store.read(row.storage_key);
  const found = bytes ? await inspect(bytes, row.size_bytes) : null;
  // Fewer bytes than declared are what a store kept of an upload cut off with its process (a
  // crash; s3rver keeps the part): an upload link never stores a short body. Not an upload.
  if (!found || found.size < row.size_bytes) {
    if (row.upload_expires_at && row.upload_expires_at.getTime() <= Date.now()) {
      if (found) await deps.store.delete(row.storage_key);
      return store.settle(deps.db, row, 'pending_upload', { ...rejected('upload_expired'), upload_key: null, purged_at: new Date() });
    }
    throw ApiError.conflict('upload_missing', {}, 'Nessun file caricato: invia i byte al link di caricamento, poi chiama complete.');
  }
  return settleUpload(deps, row, found);
}

/** The stored bytes of an upload, as inspected, decide: rejected (bytes deleted), or available / pending_scan once scanned. */
async function settleUpload(deps: DocumentsDeps, row: DocumentRow, found: Inspected): Promise<DocumentRow> {
  const reason = await verdict(found, { sizeBytes: row.size_bytes, sha256: row.sha256, contentType: row.content_type });
  if (reason) {
    await deps.store.delete(row.storage_key);
    return store.settle(deps.db, row, 'pending_upload', { ...rejected(reason), upload_key: null, purged_at: new Date() });
  }
  const outcome = await scanStored(deps, row.storage_key);
  if (outcome.status === 'rejected') await deps.store.delete(row.storage_key);
  const done = await store.settle(deps.db, row, 'pending_upload', { ...outcomeChanges(outcome), upload_key: null, upload_expires_at: null });
  // Another process settled it first as refused (the job, as the link expired mid-upload): these bytes are nobody's.
  if (done.status === 'rejected' && outcome.status !== 'rejected') await deps.store.delete(row.storage_key);
  return done;
}

/** The body of an upload link ended before the declared size: nothing was stored, the document is refused. */
class ShortUpload extends Error {}

export interface UploadBody {
  bytes: AsyncIterable<Buffer>;
  /** The request's Content-Length, when it has one. */
  length: number | null;
  /** Whether the client sent its whole body (false once it went away midway). */
  sentWhole: () => boolean;
}

/**
 * The body of an upload link (src/http/routes/files.ts, after the link's single use was
 * claimed), streamed to the document's key and inspected on the way, so the bytes are checked
 * without reading them back; then settled as `complete` would. The stream is cut (and nothing
 * stored) at one byte more than declared (`400`), or when it ends short: `rejected`
 * `size_mismatch` if the client sent a whole body, else the error is thrown (the client went
 * away; the route frees the link). A body whose Content-Length already says it is short is
 * read but never sent to the storage. A failed or interrupted upload leaves no bytes under the
 * key and the row `pending_upload`.
 */
export async function receiveUpload(deps: DocumentsDeps, row: DocumentRow, body: UploadBody): Promise<DocumentRow> {
  const limit = row.size_bytes;
  const short = () => store.settle(deps.db, row, 'pending_upload', { ...rejected('size_mismatch'), upload_key: null, purged_at: new Date() });
  if (body.length !== null && body.length < limit) {
    for await (const _chunk of body.bytes); // read to its end, so the client gets the answer after sending all it meant to
    if (body.sentWhole()) return short();
    throw new ShortUpload();
  }
  const seen = new Inspector();
  async function* exact(): AsyncGenerator<Buffer> {
    for await (const chunk of body.bytes) {
      if (seen.size + chunk.length > limit) throw ApiError.invalid('body', [{ path: '', message: `il file supera i ${limit} byte dichiarati` }]);
      seen.add(chunk);
      yield chunk;
    }
    // The storage (an S3 PUT of the declared length) must never see a body end short: it is cut instead.
    if (seen.size < limit) throw new ShortUpload();
  }
  try {
    await deps.store.write(row.storage_key, Readable.from(exact()), limit, row.content_type);
  } catch (error) {
    // Both drivers' writes are atomic (fs: a renamed temporary file; S3: an aborted PUT stores
    // nothing), but a store may keep the part of an interrupted PUT (s3rver does): nobody else
    // writes this key while the link's single use is held, so whatever is there goes.
    await deps.store.delete(row.storage_key).catch(() => undefined);
    if (error instanceof ShortUpload && body.sentWhole()) return short();
    throw error;
  }
  return settleUpload(deps, row, seen.result());
}

/** Scans again a document whose scanner did not answer (the job). */
export async function retryScan(deps: DocumentsDeps, row: DocumentRow): Promise<DocumentRow> {
  if (row.status !== 'pending_scan') return row;
  const outcome = await scanStored(deps, row.storage_key);
  if (outcome.status === 'pending_scan') {
    return store.settle(deps.db, row, 'pending_scan', { addScanAttempts: 1 });
  }
  if (outcome.status === 'rejected') await deps.store.delete(row.storage_key);
  return store.settle(deps.db, row, 'pending_scan', outcomeChanges(outcome));
}

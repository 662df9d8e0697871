/**
 * Periodic jobs of documents. Each is safe in several processes at once: every change is a
 * conditional UPDATE on the row's status (store.ts `settle`), deleting bytes twice is harmless.
 *
 * - finish uploads: a `pending_upload` document whose link expired is checked if bytes arrived
 *   (nobody called `complete`), else rejected `upload_expired`;
 * - retry scans: `pending_scan` documents are scanned again until the scanner answers;
 * - purge: bytes of documents archived longer than DOCUMENT_RETENTION_DAYS, or of an erased patient;
 * - sweep: bytes no row wants (a crash between the bytes and the row, a rejected or purged
 *   document, an upload that finished after its row was refused, leftovers under `uploads/` of
 *   the presigned PUTs the s3 driver once handed out), once older than an hour.
 */
import type { Job } from '../../jobs/scheduler.js';
import { purgeLinkUses } from './link-store.js';
import { documentOfKey } from './storage/storage.js';
import { depsOf, finishUpload, purgeDueDocuments, retryScan, type DocumentsDeps } from './service.js';
import { ApiError } from '../../core/errors.js';
import * as store from './store.js';

const BATCH = 50;
/** Bytes younger than this are left alone: their row may be about to be written. */
const SWEEP_GRACE_MS = 60 * 60_000;

export async function finishExpiredUploads(deps: DocumentsDeps): Promise<number> {
  const rows = await store.expiredUploads(deps.db, BATCH);
  for (const row of rows) {
    try {
      await finishUpload(deps, row);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
  }
  return rows.length;
}

export async function retryPendingScans(deps: DocumentsDeps): Promise<number> {
  const rows = await store.pendingScans(deps.db, BATCH);
  let settled = 0;
  for (const row of rows) if ((await retryScan(deps, row)).status !== 'pending_scan') settled++;
  return settled;
}

export async function sweepOrphanBytes(deps: DocumentsDeps, now = Date.now()): Promise<number> {
  let deleted = 0;
  for (const prefix of ['documents/', 'uploads/', ...(deps.store.kind === 'fs' ? ['tmp/'] : [])]) {
    for await (const object of deps.store.list(prefix)) {
      if (now - object.lastModified.getTime() < SWEEP_GRACE_MS) continue;
      const owner = documentOfKey(object.key);
      let wanted = false;
      if (owner) {
        const row = await store.storedStateOf(deps.db, owner.clinicId, owner.documentId);
        // Nothing is written under `uploads/` any more (storage.ts): such bytes are never wanted.
        wanted = row !== null && row.purged_at === null && owner.kind === 'documents' && object.key === row.storage_key && row.status !== 'rejected';
      }
      if (!wanted) {
        await deps.store.delete(object.key);
        deleted++;
      }
    }
  }
  return deleted;
}

export function documentJobs(): Job[] {
  return [
    { name: 'documents-finish-uploads', everyMs: 60_000, run: (ctx) => finishExpiredUploads(depsOf(ctx)) },
    { name: 'documents-retry-scans', everyMs: 60_000, run: (ctx) => retryPendingScans(depsOf(ctx)) },
    {
      name: 'documents-purge',
      everyMs: 10 * 60_000,
      run: async (ctx) => {
        await purgeLinkUses(ctx.db);
        return purgeDueDocuments(depsOf(ctx));
      },
    },
    { name: 'documents-sweep', everyMs: 30 * 60_000, run: (ctx) => sweepOrphanBytes(depsOf(ctx)) },
  ];
}

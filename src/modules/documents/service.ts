/**
 * Documents: creation (inline or by upload link), the upload's completion, reading,
 * the bytes, archiving. Invariants in README.md beside this file. Network and storage calls are
 * never made inside a transaction: the bytes are stored and checked first, the row follows.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { can, type Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import { checkRefs, findScoped, lockScoped } from '../../db/scoped.js';
import type { TenantScope } from '../../db/tenant.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { documentBodyIssues, inspect, normalizeContentType, verdict } from './checks.js';
import type { DocumentsDeps } from './runtime.js';
import {
  CLINICAL_CATEGORIES,
  type ContentLinkView,
  type DocumentCategory,
  type DocumentListInput,
  type DocumentOrigin,
  type DocumentView,
  type NewDocument,
  type UploadView,
} from './schema.js';
import { documentKey, uploadKey } from './storage/storage.js';
import { newNonce, uploadLinkUrl } from './storage/links.js';
import * as store from './store.js';
import type { DocumentInsert, DocumentRow } from './store.js';
import { finishUpload, rejected, scanStored, type Outcome } from './uploads.js';

export { depsOf, type DocumentsDeps } from './runtime.js';
export { finishUpload, retryScan } from './uploads.js';

export function documentView(row: DocumentRow, upload?: UploadView): DocumentView {
  return {
    id: row.id,
    patientId: row.patient_id,
    facilityId: row.facility_id,
    category: row.category,
    title: row.title,
    filename: row.filename,
    contentType: row.content_type,
    sizeBytes: row.size_bytes,
    sha256: row.sha256,
    status: row.status,
    rejectedReason: row.rejected_reason,
    scanResult: row.scan_result,
    appointmentId: row.appointment_id,
    quoteId: row.quote_id,
    invoiceId: row.invoice_id,
    chatMessageId: row.chat_message_id,
    origin: row.origin,
    ...(upload ? { upload } : {}),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    archivedAt: row.archived_at?.toISOString() ?? null,
    purgedAt: row.purged_at?.toISOString() ?? null,
  };
}

/** Clinical categories (xray, photo, lab, referral, consent) also need `clinical:read` / `clinical:write`. */
function requireCategoryScope(actor: Actor, category: DocumentCategory, access: 'read' | 'write'): void {
  const scope = `clinical:${access}`;
  if (CLINICAL_CATEGORIES.has(category) && !can(actor, scope)) throw new ApiError('insufficient_scope', { requiredScopes: [scope] });
}

function originOf(actor: Actor): DocumentOrigin {
  if (actor.via === 'back_office') return 'back_office';
  return actor.agent === 'chat_bot' ? 'chat_bot' : actor.agent === 'voice_agent' ? 'voice_agent' : 'api';
}

/**
 * The links of a new document: the patient (visible, not erased), and an appointment, quote,
 * invoice or chat message of the same patient (a chat message must carry media). Every wrong
 * field at once, as 400.
 */
async function checkLinks(trx: Transaction, actor: Actor, input: NewDocument): Promise<{ facilityId: string | null }> {
  // The linked records through checkRefs' one rule: visible to the key and the patient's (absent, unseen and another patient's are one answer).
  const { issues, rows } = await checkRefs(trx, actor, [
    { field: 'patientId', table: 'patients', id: input.patientId },
    { field: 'appointmentId', table: 'appointments', id: input.appointmentId, patientId: input.patientId },
    { field: 'quoteId', table: 'treatment_plans', id: input.quoteId, patientId: input.patientId },
    { field: 'invoiceId', table: 'invoices', id: input.invoiceId, patientId: input.patientId },
  ]);
  if (input.chatMessageId) {
    const message = await store.chatMessageOf(trx, actor, input.chatMessageId);
    if (!message) issues.push({ path: 'chatMessageId', message: 'non esiste in questo studio' });
    else if (!message.media_mime_type) issues.push({ path: 'chatMessageId', message: 'il messaggio non ha un allegato (mediaMimeType)' });
    else if (message.patient_id !== null && message.patient_id.toLowerCase() !== input.patientId.toLowerCase())
      issues.push({ path: 'chatMessageId', message: 'appartiene alla conversazione di un altro paziente' });
  }
  if (issues.length > 0) throw ApiError.invalid('body', issues);
  return { facilityId: rows.get('patientId')?.facility_id ?? null };
}

async function insertRow(deps: DocumentsDeps, actor: Actor, input: NewDocument, values: Omit<DocumentInsert, 'facility_id'>): Promise<DocumentRow> {
  return deps.db.transaction().execute(async (trx) => {
    const { facilityId } = await checkLinks(trx, actor, input);
    return store.insertDocument(trx, { ...values, facility_id: facilityId });
  });
}

interface CreateInput extends NewDocument {
  /** Origin of the service's links (PUBLIC_URL, or the one the request came to). */
  linkBase: string;
}

/**
 * Creates a document. With `contentBase64` the bytes are checked and stored first (a refusal
 * stores none), then the row is written, `available`, `pending_scan` or `rejected`: the answer
 * is final. Without, the row is `pending_upload` and the answer carries the upload link.
 */
export async function createDocument(deps: DocumentsDeps, actor: Actor, input: CreateInput): Promise<DocumentView> {
  requireCategoryScope(actor, input.category, 'write');
  const issues = documentBodyIssues(deps.config.maxBytes)(input);
  if (issues.length > 0) throw ApiError.invalid('body', issues);
  // Links first, so a wrong id costs no upload or scan (checked again in the writing transaction).
  // Read only: it commits no work, so it leaves an idempotent request's key unmarked (src/db/IDEMPOTENCY.md, rule 5).
  await deps.db
    .transaction()
    .setAccessMode('read only')
    .execute((trx) => checkLinks(trx, actor, input));
  const id = randomUUID();
  const key = documentKey(actor.clinicId, id);
  const base = {
    id,
    clinic_id: actor.clinicId,
    patient_id: input.patientId,
    category: input.category,
    title: input.title,
    filename: input.filename,
    content_type: normalizeContentType(input.contentType),
    size_bytes: input.sizeBytes,
    sha256: input.sha256.toLowerCase(),
    appointment_id: input.appointmentId ?? null,
    quote_id: input.quoteId ?? null,
    invoice_id: input.invoiceId ?? null,
    chat_message_id: input.chatMessageId ?? null,
    origin: originOf(actor),
    storage_key: key,
  };

  if (input.contentBase64 === undefined) {
    const nonce = newNonce();
    const upload_key = uploadKey(actor.clinicId, id, nonce);
    const expiresAt = new Date(Date.now() + deps.config.uploadLinkSeconds * 1000);
    const row = await insertRow(deps, actor, input, { ...base, status: 'pending_upload', upload_key, upload_expires_at: expiresAt });
    // The service's own single-use link with either storage driver (src/http/routes/files.ts).
    const url = uploadLinkUrl(deps.linkSecret, input.linkBase, { clinicId: actor.clinicId, documentId: id, nonce, expiresAt: expiresAt.getTime() });
    return documentView(row, { method: 'PUT', url, headers: { 'content-type': row.content_type }, expiresAt: expiresAt.toISOString() });
  }

  const bytes = Buffer.from(input.contentBase64, 'base64');
  const reason = await verdict(await inspect(Readable.from([bytes]), input.sizeBytes), input);
  let outcome: Outcome;
  if (reason) outcome = rejected(reason);
  else {
    // Stored before the row: a crash here leaves bytes without a row (swept), never a row without bytes.
    await deps.store.write(key, bytes, bytes.length, base.content_type);
    outcome = await scanStored(deps, key);
    if (outcome.status === 'rejected') await deps.store.delete(key);
  }
  try {
    const row = await insertRow(deps, actor, input, {
      ...base,
      ...outcome,
      scan_attempts: outcome.scan_result === 'not_scanned' ? 0 : 1,
      scanned_at: outcome.scan_result === 'clean' || outcome.scan_result === 'infected' ? new Date() : null,
      purged_at: outcome.status === 'rejected' ? new Date() : null,
    });
    return documentView(row);
  } catch (error) {
    if (outcome.status !== 'rejected') await deps.store.delete(key).catch(() => undefined);
    throw error;
  }
}

/** `POST /v1/documents/{id}/complete`. */
export async function completeDocument(deps: DocumentsDeps, actor: Actor, id: string): Promise<DocumentRow> {
  const row = await findScoped(deps.db, 'documents', actor, id);
  requireCategoryScope(actor, row.category, 'write');
  return finishUpload(deps, row);
}

export async function getDocument(db: Db, actor: Actor, id: string): Promise<DocumentRow> {
  const row = await findScoped(db, 'documents', actor, id);
  requireCategoryScope(actor, row.category, 'read');
  return row;
}

/**
 * The list, by last modification then id. Without `clinical:read` the clinical categories are
 * left out (asking for one by `category` is 403). Archived documents only with `includeArchived`.
 */
export async function listDocuments(db: Db, actor: Actor, q: DocumentListInput): Promise<{ data: DocumentView[]; nextCursor: string | null }> {
  if (q.category) requireCategoryScope(actor, q.category, 'read');
  const page = await store.listDocuments(db, actor, q, can(actor, 'clinical:read'));
  return { data: page.items.map((r) => documentView(r)), nextCursor: page.nextCursor };
}

/** Whether a document has content to give: its bytes checked and stored (`available`), and not purged. */
export function hasContent(row: { status: string; purged_at: Date | null }): boolean {
  return row.status === 'available' && row.purged_at === null;
}

/** The row whose bytes may be read (`hasContent`), else 409 `not_available`. */
export async function readableDocument(db: Db, actor: Actor, id: string): Promise<DocumentRow> {
  const row = await getDocument(db, actor, id);
  if (!hasContent(row))
    throw ApiError.conflict('not_available', { status: row.status, purged: row.purged_at !== null }, 'Il documento non ha contenuto da leggere.');
  return row;
}

/** The bytes of a readable document, streamed from the storage. */
export async function openContent(deps: DocumentsDeps, row: DocumentRow): Promise<Readable> {
  const bytes = await deps.store.read(row.storage_key);
  if (!bytes) throw ApiError.conflict('not_available', { status: row.status, purged: true });
  return bytes;
}

/** A short-lived link to the bytes of a readable document. */
export async function contentLink(deps: DocumentsDeps, row: DocumentRow, linkBase: string): Promise<ContentLinkView> {
  const expiresAt = new Date(Date.now() + deps.config.downloadLinkSeconds * 1000);
  const url = await deps.store.downloadLink(row.storage_key, {
    clinicId: row.clinic_id,
    documentId: row.id,
    contentType: row.content_type,
    sizeBytes: row.size_bytes,
    filename: row.filename,
    expiresAt,
    linkBase,
  });
  return { url, expiresAt: expiresAt.toISOString(), contentType: row.content_type, sizeBytes: row.size_bytes };
}

/** `DELETE /v1/documents/{id}`: archives (once); the bytes are purged after the retention period. */
export async function archiveDocument(db: Db, actor: Actor, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const row = await lockScoped(trx, 'documents', actor, id);
    requireCategoryScope(actor, row.category, 'write');
    if (row.archived_at) return;
    await store.archive(trx, row.id);
  });
}

/**
 * Inside the patient's erase transaction: the titles and file names go, the documents are
 * archived. The bytes are deleted right after the commit by `purgePatientDocuments` (and by the
 * purge job, should the process stop in between).
 */
export async function forgetPatientDocuments(trx: Transaction, scope: TenantScope, patientId: string): Promise<void> {
  await store.forgetPatient(trx, scope, patientId);
}

/** Deletes the bytes of these documents and marks them purged. */
async function purgeRows(deps: DocumentsDeps, rows: store.PurgeRow[]): Promise<number> {
  for (const row of rows) {
    await deps.store.delete(row.storage_key);
    await store.markPurged(deps.db, row);
  }
  return rows.length;
}

/** After a patient's erase: their documents' bytes, at once. */
export async function purgePatientDocuments(deps: DocumentsDeps, scope: TenantScope, patientId: string): Promise<number> {
  const rows = await store.unpurgedOfPatient(deps.db, scope, patientId);
  return purgeRows(deps, rows);
}

/** The purge job: archived longer than the retention period, or of an erased patient. */
export async function purgeDueDocuments(deps: DocumentsDeps, batch = 100): Promise<number> {
  const cutoff = new Date(Date.now() - deps.config.retentionDays * 86_400_000);
  const rows = await store.dueForPurge(deps.db, cutoff, batch);
  return purgeRows(deps, rows);
}

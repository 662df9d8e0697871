/**
 * Documents (issue 17): creation (inline or by upload link), the upload's completion, reading,
 * the bytes, archiving. Invariants in README.md beside this file. Network and storage calls are
 * never made inside a transaction: the bytes are stored and checked first, the row follows.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { sql, type Insertable, type Selectable } from 'kysely';
import type { AppContext } from '../../context.js';
import { can, type Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import { keysetPage } from '../../db/keyset.js';
import { checkRefs, findScoped, lockScoped } from '../../db/scoped.js';
import type { DocumentsTable } from '../../db/tables/documents.js';
import { facilityVisible, type TenantScope } from '../../db/tenant.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { documentBodyIssues, inspect, Inspector, normalizeContentType, verdict, type Inspected } from './checks.js';
import type { DocumentsRuntime } from './runtime.js';
import { ScannerUnavailableError } from './scanner/scanner.js';
import {
  CLINICAL_CATEGORIES,
  type ContentLinkView,
  type DocumentCategory,
  type DocumentListInput,
  type DocumentOrigin,
  type DocumentView,
  type NewDocument,
  type RejectedReason,
  type UploadView,
} from './schema.js';
import { documentKey, uploadKey } from './storage/storage.js';
import { newNonce, uploadLinkUrl } from './storage/links.js';

export type DocumentRow = Selectable<DocumentsTable>;

/** What the service needs: the database and the module's runtime (storage, scanner, configuration). */
export interface DocumentsDeps extends DocumentsRuntime {
  db: Db;
}

export const depsOf = (ctx: Pick<AppContext, 'db' | 'documents'>): DocumentsDeps => ({ db: ctx.db, ...ctx.documents });

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
    const message = await trx
      .selectFrom('chat_messages as m')
      .innerJoin('conversations as c', 'c.id', 'm.conversation_id')
      .select(['m.media_mime_type', 'c.patient_id', 'c.facility_id'])
      .where('m.id', '=', input.chatMessageId)
      .where('m.clinic_id', '=', actor.clinicId)
      .where(facilityVisible('c.facility_id', actor))
      .executeTakeFirst();
    if (!message) issues.push({ path: 'chatMessageId', message: 'non esiste in questo studio' });
    else if (!message.media_mime_type) issues.push({ path: 'chatMessageId', message: 'il messaggio non ha un allegato (mediaMimeType)' });
    else if (message.patient_id !== null && message.patient_id.toLowerCase() !== input.patientId.toLowerCase())
      issues.push({ path: 'chatMessageId', message: 'appartiene alla conversazione di un altro paziente' });
  }
  if (issues.length > 0) throw ApiError.invalid('body', issues);
  return { facilityId: rows.get('patientId')?.facility_id ?? null };
}

interface Outcome {
  status: 'available' | 'pending_scan' | 'rejected';
  rejected_reason: RejectedReason | null;
  scan_result: 'not_scanned' | 'pending' | 'clean' | 'infected';
  scan_signature: string | null;
}

const rejected = (reason: RejectedReason, scan: Outcome['scan_result'] = 'not_scanned', signature: string | null = null): Outcome => ({
  status: 'rejected',
  rejected_reason: reason,
  scan_result: scan,
  scan_signature: signature,
});

/** Scans the stored bytes: clean or no scanner -> available; malware -> rejected; no answer -> pending_scan. */
async function scanStored(deps: DocumentsDeps, key: string): Promise<Outcome> {
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

export interface CreateInput extends NewDocument {
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
  await deps.db.transaction().execute((trx) => checkLinks(trx, actor, input));
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

async function insertRow(deps: DocumentsDeps, actor: Actor, input: NewDocument, values: Omit<Insertable<DocumentsTable>, 'facility_id'>): Promise<DocumentRow> {
  return deps.db.transaction().execute(async (trx) => {
    const { facilityId } = await checkLinks(trx, actor, input);
    const row = await trx
      .insertInto('documents')
      .values({ ...values, facility_id: facilityId })
      .returningAll()
      .executeTakeFirstOrThrow();
    // The chat message whose file this is points back at it.
    if (row.chat_message_id)
      await trx
        .updateTable('chat_messages')
        .set({ document_id: row.id })
        .where('id', '=', row.chat_message_id)
        .where('clinic_id', '=', actor.clinicId)
        .execute();
    return row;
  });
}

/**
 * Moves a document from one status to the outcome, only if it is still in `from` (another
 * process may have settled it meanwhile: then its row is returned as it is).
 */
async function settle(db: Db, row: DocumentRow, from: DocumentRow['status'], changes: Record<string, unknown>): Promise<DocumentRow> {
  const updated = await db
    .updateTable('documents')
    .set({ ...changes, updated_at: sql`now()`, version: sql`version + 1` })
    .where('id', '=', row.id)
    .where('clinic_id', '=', row.clinic_id)
    .where('status', '=', from)
    .returningAll()
    .executeTakeFirst();
  return updated ?? (await db.selectFrom('documents').selectAll().where('id', '=', row.id).where('clinic_id', '=', row.clinic_id).executeTakeFirstOrThrow());
}

function outcomeChanges(outcome: Outcome): Record<string, unknown> {
  return {
    ...outcome,
    scan_attempts: sql`scan_attempts + ${outcome.scan_result === 'not_scanned' ? 0 : 1}`,
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
      return settle(deps.db, row, 'pending_upload', { ...rejected('upload_expired'), upload_key: null, purged_at: new Date() });
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
    return settle(deps.db, row, 'pending_upload', { ...rejected(reason), upload_key: null, purged_at: new Date() });
  }
  const outcome = await scanStored(deps, row.storage_key);
  if (outcome.status === 'rejected') await deps.store.delete(row.storage_key);
  const done = await settle(deps.db, row, 'pending_upload', { ...outcomeChanges(outcome), upload_key: null, upload_expires_at: null });
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
  const short = () => settle(deps.db, row, 'pending_upload', { ...rejected('size_mismatch'), upload_key: null, purged_at: new Date() });
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

/** `POST /v1/documents/{id}/complete`. */
export async function completeDocument(deps: DocumentsDeps, actor: Actor, id: string): Promise<DocumentRow> {
  const row = await findScoped(deps.db, 'documents', actor, id);
  requireCategoryScope(actor, row.category, 'write');
  return finishUpload(deps, row);
}

/** Scans again a document whose scanner did not answer (the job). */
export async function retryScan(deps: DocumentsDeps, row: DocumentRow): Promise<DocumentRow> {
  if (row.status !== 'pending_scan') return row;
  const outcome = await scanStored(deps, row.storage_key);
  if (outcome.status === 'pending_scan') {
    return settle(deps.db, row, 'pending_scan', { scan_attempts: sql`scan_attempts + 1` });
  }
  if (outcome.status === 'rejected') await deps.store.delete(row.storage_key);
  return settle(deps.db, row, 'pending_scan', outcomeChanges(outcome));
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
  const limit = q.limit ?? 50;
  const filters = JSON.stringify([
    q.patientId?.toLowerCase() ?? null,
    q.category ?? null,
    q.status ?? null,
    q.updatedSince ?? null,
    q.includeArchived ?? false,
  ]);
  const cursorScope = `documents:${actor.clinicId}:${filters}`;
  let query = db.selectFrom('documents').selectAll().where('clinic_id', '=', actor.clinicId).where(facilityVisible('facility_id', actor));
  if (!can(actor, 'clinical:read')) query = query.where('category', 'not in', [...CLINICAL_CATEGORIES]);
  if (!q.includeArchived) query = query.where('archived_at', 'is', null);
  if (q.patientId) query = query.where('patient_id', '=', q.patientId);
  if (q.category) query = query.where('category', '=', q.category);
  if (q.status) query = query.where('status', '=', q.status);
  if (q.updatedSince) query = query.where('updated_at', '>=', new Date(q.updatedSince));
  const page = await keysetPage(query, {
    columns: ['updated_at', 'id'],
    at: (r) => r.updated_at,
    secret: actor.cursorSecret,
    scope: cursorScope,
    cursor: q.cursor,
    limit: limit,
  });
  return { data: page.items.map((r) => documentView(r)), nextCursor: page.nextCursor };
}

/** The row whose bytes may be read: `available` and not purged, else 409 `not_available`. */
export async function readableDocument(db: Db, actor: Actor, id: string): Promise<DocumentRow> {
  const row = await getDocument(db, actor, id);
  if (row.status !== 'available' || row.purged_at !== null)
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
    await trx
      .updateTable('documents')
      .set({ archived_at: sql`now()`, updated_at: sql`now()`, version: sql`version + 1` })
      .where('id', '=', row.id)
      .execute();
  });
}

/**
 * Inside the patient's erase transaction: the titles and file names go, the documents are
 * archived. The bytes are deleted right after the commit by `purgePatientDocuments` (and by the
 * purge job, should the process stop in between).
 */
export async function forgetPatientDocuments(trx: Transaction, scope: TenantScope, patientId: string): Promise<void> {
  await trx
    .updateTable('documents')
    .set({ title: null, filename: null, archived_at: sql`coalesce(archived_at, now())`, updated_at: sql`now()`, version: sql`version + 1` })
    .where('clinic_id', '=', scope.clinicId)
    .where('patient_id', '=', patientId)
    .execute();
}

/** Deletes the bytes of these documents and marks them purged. */
async function purgeRows(deps: DocumentsDeps, rows: Pick<DocumentRow, 'id' | 'clinic_id' | 'storage_key'>[]): Promise<number> {
  for (const row of rows) {
    await deps.store.delete(row.storage_key);
    await deps.db
      .updateTable('documents')
      .set({ purged_at: sql`now()`, upload_key: null, updated_at: sql`now()`, version: sql`version + 1` })
      .where('id', '=', row.id)
      .where('clinic_id', '=', row.clinic_id)
      .where('purged_at', 'is', null)
      .execute();
  }
  return rows.length;
}

/** After a patient's erase: their documents' bytes, at once. */
export async function purgePatientDocuments(deps: DocumentsDeps, scope: TenantScope, patientId: string): Promise<number> {
  const rows = await deps.db
    .selectFrom('documents')
    .select(['id', 'clinic_id', 'storage_key'])
    .where('clinic_id', '=', scope.clinicId)
    .where('patient_id', '=', patientId)
    .where('purged_at', 'is', null)
    .execute();
  return purgeRows(deps, rows);
}

/** The purge job: archived longer than the retention period, or of an erased patient. */
export async function purgeDueDocuments(deps: DocumentsDeps, batch = 100): Promise<number> {
  const cutoff = new Date(Date.now() - deps.config.retentionDays * 86_400_000);
  const rows = await deps.db
    .selectFrom('documents as d')
    .innerJoin('patients as p', 'p.id', 'd.patient_id')
    .select(['d.id', 'd.clinic_id', 'd.storage_key'])
    .where('d.archived_at', 'is not', null)
    .where('d.purged_at', 'is', null)
    .where((eb) => eb.or([eb('d.archived_at', '<=', cutoff), eb('p.erased_at', 'is not', null)]))
    .limit(batch)
    .execute();
  return purgeRows(deps, rows);
}

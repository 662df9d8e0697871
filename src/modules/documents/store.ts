/**
 * The documents' SQL (README.md beside this file): rows in, rows out. Every change of a status
 * is conditional on the status it leaves (`settle`), so processes racing on one document agree;
 * the rules are service.ts' and uploads.ts'.
 */
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Actor } from '../../core/actor.js';
import { keysetPage } from '../../db/keyset.js';
import type { DocumentsTable } from '../../db/tables/documents.js';
import { facilityVisible, type TenantScope } from '../../db/tenant.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { CLINICAL_CATEGORIES, type DocumentListInput } from './schema.js';

export type DocumentRow = Selectable<DocumentsTable>;
export type DocumentInsert = Insertable<DocumentsTable>;
/** What settling a document sets; `addScanAttempts` counts scans on top of the stored count. */
export type DocumentChanges = Omit<Updateable<DocumentsTable>, 'scan_attempts'> & { addScanAttempts?: number };
/** What a purge needs of a row. */
export type PurgeRow = Pick<DocumentRow, 'id' | 'clinic_id' | 'storage_key'>;

/** The chat message a document names, when the key sees its conversation in its clinic. */
export async function chatMessageOf(
  trx: Transaction,
  actor: Actor,
  id: string,
): Promise<{ media_mime_type: string | null; patient_id: string | null; facility_id: string | null } | null> {
  const message = await trx
    .selectFrom('chat_messages as m')
    .innerJoin('conversations as c', 'c.id', 'm.conversation_id')
    .select(['m.media_mime_type', 'c.patient_id', 'c.facility_id'])
    .where('m.id', '=', id)
    .where('m.clinic_id', '=', actor.clinicId)
    .where(facilityVisible('c.facility_id', actor))
    .executeTakeFirst();
  return message ?? null;
}

/** The row; the chat message whose file this is points back at it. */
export async function insertDocument(trx: Transaction, values: DocumentInsert): Promise<DocumentRow> {
  const row = await trx.insertInto('documents').values(values).returningAll().executeTakeFirstOrThrow();
  if (row.chat_message_id)
    await trx.updateTable('chat_messages').set({ document_id: row.id }).where('id', '=', row.chat_message_id).where('clinic_id', '=', row.clinic_id).execute();
  return row;
}

/**
 * Moves a document from one status to the outcome, only if it is still in `from` (another
 * process may have settled it meanwhile: then its row is returned as it is).
 */
export async function settle(db: Db, row: DocumentRow, from: DocumentRow['status'], changes: DocumentChanges): Promise<DocumentRow> {
  const { addScanAttempts, ...set } = changes;
  const updated = await db
    .updateTable('documents')
    .set({
      ...set,
      ...(addScanAttempts !== undefined ? { scan_attempts: sql`scan_attempts + ${addScanAttempts}` } : {}),
      updated_at: sql`now()`,
      version: sql`version + 1`,
    })
    .where('id', '=', row.id)
    .where('clinic_id', '=', row.clinic_id)
    .where('status', '=', from)
    .returningAll()
    .executeTakeFirst();
  return updated ?? (await db.selectFrom('documents').selectAll().where('id', '=', row.id).where('clinic_id', '=', row.clinic_id).executeTakeFirstOrThrow());
}

export async function archive(trx: Transaction, id: string): Promise<void> {
  await trx
    .updateTable('documents')
    .set({ archived_at: sql`now()`, updated_at: sql`now()`, version: sql`version + 1` })
    .where('id', '=', id)
    .execute();
}

/** The titles and file names of a patient's documents go, the documents are archived. */
export async function forgetPatient(trx: Transaction, scope: TenantScope, patientId: string): Promise<void> {
  await trx
    .updateTable('documents')
    .set({ title: null, filename: null, archived_at: sql`coalesce(archived_at, now())`, updated_at: sql`now()`, version: sql`version + 1` })
    .where('clinic_id', '=', scope.clinicId)
    .where('patient_id', '=', patientId)
    .execute();
}

/** Marks a document purged (its bytes deleted), once. */
export async function markPurged(db: Db, row: PurgeRow): Promise<void> {
  await db
    .updateTable('documents')
    .set({ purged_at: sql`now()`, upload_key: null, updated_at: sql`now()`, version: sql`version + 1` })
    .where('id', '=', row.id)
    .where('clinic_id', '=', row.clinic_id)
    .where('purged_at', 'is', null)
    .execute();
}

export async function unpurgedOfPatient(db: Db, scope: TenantScope, patientId: string): Promise<PurgeRow[]> {
  return db
    .selectFrom('documents')
    .select(['id', 'clinic_id', 'storage_key'])
    .where('clinic_id', '=', scope.clinicId)
    .where('patient_id', '=', patientId)
    .where('purged_at', 'is', null)
    .execute();
}

/** Archived documents not yet purged, archived before `cutoff` or of an erased patient. */
export async function dueForPurge(db: Db, cutoff: Date, batch: number): Promise<PurgeRow[]> {
  return db
    .selectFrom('documents as d')
    .innerJoin('patients as p', 'p.id', 'd.patient_id')
    .select(['d.id', 'd.clinic_id', 'd.storage_key'])
    .where('d.archived_at', 'is not', null)
    .where('d.purged_at', 'is', null)
    .where((eb) => eb.or([eb('d.archived_at', '<=', cutoff), eb('p.erased_at', 'is not', null)]))
    .limit(batch)
    .execute();
}

/** `pending_upload` documents whose link has expired. */
export async function expiredUploads(db: Db, batch: number): Promise<DocumentRow[]> {
  return db.selectFrom('documents').selectAll().where('status', '=', 'pending_upload').where('upload_expires_at', '<=', new Date()).limit(batch).execute();
}

/** `pending_scan` documents, longest waiting first. */
export async function pendingScans(db: Db, batch: number): Promise<DocumentRow[]> {
  return db.selectFrom('documents').selectAll().where('status', '=', 'pending_scan').orderBy('updated_at').limit(batch).execute();
}

/** The clinic's document, with no visibility check: a signed link names it (link-uses.ts). */
export async function linkedDocument(db: Db, clinicId: string, documentId: string): Promise<DocumentRow | null> {
  const row = await db.selectFrom('documents').selectAll().where('id', '=', documentId).where('clinic_id', '=', clinicId).executeTakeFirst();
  return row ?? null;
}

/** What the sweep needs to know whether stored bytes are still wanted. */
export async function storedStateOf(db: Db, clinicId: string, documentId: string): Promise<Pick<DocumentRow, 'status' | 'storage_key' | 'purged_at'> | null> {
  const row = await db
    .selectFrom('documents')
    .select(['status', 'storage_key', 'purged_at'])
    .where('id', '=', documentId)
    .where('clinic_id', '=', clinicId)
    .executeTakeFirst();
  return row ?? null;
}

/** The list page; `clinical` false leaves the clinical categories out. */
export async function listDocuments(
  db: Db,
  actor: Actor,
  q: DocumentListInput,
  clinical: boolean,
): Promise<{ items: DocumentRow[]; nextCursor: string | null }> {
  const filters = JSON.stringify([
    q.patientId?.toLowerCase() ?? null,
    q.category ?? null,
    q.status ?? null,
    q.updatedSince ?? null,
    q.includeArchived ?? false,
  ]);
  const cursorScope = `documents:${actor.clinicId}:${filters}`;
  let query = db.selectFrom('documents').selectAll().where('clinic_id', '=', actor.clinicId).where(facilityVisible('facility_id', actor));
  if (!clinical) query = query.where('category', 'not in', [...CLINICAL_CATEGORIES]);
  if (!q.includeArchived) query = query.where('archived_at', 'is', null);
  if (q.patientId) query = query.where('patient_id', '=', q.patientId);
  if (q.category) query = query.where('category', '=', q.category);
  if (q.status) query = query.where('status', '=', q.status);
  if (q.updatedSince) query = query.where('updated_at', '>=', new Date(q.updatedSince));
  return keysetPage(query, {
    columns: ['updated_at', 'id'],
    at: (r) => r.updated_at,
    secret: actor.cursorSecret,
    scope: cursorScope,
    cursor: q.cursor,
    limit: q.limit ?? 50,
  });
}

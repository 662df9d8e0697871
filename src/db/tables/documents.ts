/** Tables of the documents module (src/db/migrations/0090_documents.sql). */
import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './core.js';
import type { DocumentCategory, DocumentOrigin, DocumentStatus, RejectedReason, ScanResult } from '../../modules/documents/schema.js';

type BigInt = ColumnType<number, number, number>;

export interface DocumentsTable {
  id: string;
  clinic_id: string;
  facility_id: string | null;
  patient_id: string;
  category: DocumentCategory;
  title: string | null;
  filename: string | null;
  content_type: string;
  size_bytes: BigInt;
  sha256: string;
  status: DocumentStatus;
  rejected_reason: RejectedReason | null;
  scan_result: Generated<ScanResult>;
  scan_signature: string | null;
  scan_attempts: Generated<number>;
  scanned_at: NullableTimestamp;
  appointment_id: string | null;
  quote_id: string | null;
  invoice_id: string | null;
  chat_message_id: string | null;
  origin: DocumentOrigin;
  storage_key: string;
  upload_key: string | null;
  upload_expires_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  archived_at: NullableTimestamp;
  purged_at: NullableTimestamp;
  version: Generated<number>;
}

export interface DocumentLinkUsesTable {
  clinic_id: string;
  nonce: string;
  done: Generated<boolean>;
  expires_at: Date | string;
  /** Until when the process using it holds it (renewed while it uploads); a lapsed unfinished use may be claimed again. */
  lease_until: Date | string | null;
}

export interface DocumentsTables {
  documents: DocumentsTable;
  document_link_uses: DocumentLinkUsesTable;
}

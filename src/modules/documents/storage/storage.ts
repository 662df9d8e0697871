/**
 * Where a document's bytes live: one interface, two drivers (fs.ts, s3.ts), chosen by the
 * configuration (src/config.ts: S3_ENDPOINT selects s3). A document's bytes are under
 * `documents/<clinic>/<document>`, whichever way they came (inline, or the service's upload
 * link, which streams them there: links.ts, src/http/routes/files.ts). Nothing is written under
 * `uploads/` any more: objects there are leftovers of the presigned PUTs the s3 driver once
 * handed out, and the sweep deletes them.
 */
import type { Readable } from 'node:stream';

export interface StoredObject {
  key: string;
  lastModified: Date;
}

export interface LinkRequest {
  clinicId: string;
  documentId: string;
  contentType: string;
  sizeBytes: number;
  expiresAt: Date;
  /** Origin the fs driver's links start with (PUBLIC_URL or the request's). */
  linkBase: string;
  /** The name the browser saves it as. */
  filename?: string | null;
}

export interface DocumentStorage {
  readonly kind: 'fs' | 's3';
  /**
   * Writes the bytes under `key`, streamed (exactly `sizeBytes` of them); a partly written
   * object never appears under it: a body that fails midway leaves whatever was there before.
   */
  write(key: string, body: Buffer | Readable, sizeBytes: number, contentType: string): Promise<void>;
  /** The bytes, streamed; null when there is nothing under `key`. */
  read(key: string): Promise<Readable | null>;
  exists(key: string): Promise<boolean>;
  /** Deletes the bytes; nothing under `key` is not an error. */
  delete(key: string): Promise<void>;
  /** Every object whose key starts with `prefix` (the orphan sweep). */
  list(prefix: string): AsyncIterable<StoredObject>;
  /** A short-lived link to the bytes under `key` (fs: the service's own, single-use; s3: the store's presigned GET). */
  downloadLink(key: string, link: LinkRequest): Promise<string>;
  close(): Promise<void>;
}

export const documentKey = (clinicId: string, documentId: string) => `documents/${clinicId.toLowerCase()}/${documentId.toLowerCase()}`;
/**
 * What `documents.upload_key` holds: the upload link a `pending_upload` row waits for (its last
 * segment is the link's single-use nonce). No bytes are stored under it.
 */
export const uploadKey = (clinicId: string, documentId: string, nonce: string) => `uploads/${clinicId.toLowerCase()}/${documentId.toLowerCase()}/${nonce}`;

/** The document a key belongs to (the sweep asks whether its row still wants these bytes). */
export function documentOfKey(key: string): { kind: 'documents' | 'uploads'; clinicId: string; documentId: string } | null {
  const m = /^(documents|uploads)\/([0-9a-f-]{36})\/([0-9a-f-]{36})(?:\/[A-Za-z0-9_-]+)?$/.exec(key);
  return m ? { kind: m[1] as 'documents' | 'uploads', clinicId: m[2]!, documentId: m[3]! } : null;
}

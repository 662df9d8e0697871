/**
 * Where a document's bytes live: one interface, two drivers (fs.ts, s3.ts), chosen by the
 * configuration (src/config.ts: S3_ENDPOINT selects s3). Keys are
 * `documents/<clinic>/<document>` (the checked bytes) and `uploads/<clinic>/<document>/<nonce>`
 * (where an upload link writes, promoted to the document's key once checked).
 */
import type { Readable } from 'node:stream';
import type { UploadView } from '../schema.js';

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
  /** Download only: the name the browser saves it as. */
  filename?: string | null;
  /** Upload only: the nonce of the upload's key, which is also the link's single-use nonce. */
  nonce?: string;
}

export interface DocumentStorage {
  readonly kind: 'fs' | 's3';
  /** Writes the bytes under `key`; a partly written object never appears under it. */
  write(key: string, body: Buffer | Readable, sizeBytes: number, contentType: string): Promise<void>;
  /** The bytes, streamed; null when there is nothing under `key`. */
  read(key: string): Promise<Readable | null>;
  exists(key: string): Promise<boolean>;
  /** Moves the bytes from one key to another (rename, or server-side copy then delete). */
  move(from: string, to: string): Promise<void>;
  /** Deletes the bytes; nothing under `key` is not an error. */
  delete(key: string): Promise<void>;
  /** Every object whose key starts with `prefix` (the orphan sweep). */
  list(prefix: string): AsyncIterable<StoredObject>;
  /** Where and how the caller sends the bytes of an upload to `key`. */
  uploadTarget(key: string, link: LinkRequest): Promise<UploadView>;
  /** A short-lived link to the bytes under `key`. */
  downloadLink(key: string, link: LinkRequest): Promise<string>;
  close(): Promise<void>;
}

export const documentKey = (clinicId: string, documentId: string) => `documents/${clinicId.toLowerCase()}/${documentId.toLowerCase()}`;
export const uploadKey = (clinicId: string, documentId: string, nonce: string) => `uploads/${clinicId.toLowerCase()}/${documentId.toLowerCase()}/${nonce}`;

/** The document a key belongs to (the sweep asks whether its row still wants these bytes). */
export function documentOfKey(key: string): { kind: 'documents' | 'uploads'; clinicId: string; documentId: string } | null {
  const m = /^(documents|uploads)\/([0-9a-f-]{36})\/([0-9a-f-]{36})(?:\/[A-Za-z0-9_-]+)?$/.exec(key);
  return m ? { kind: m[1] as 'documents' | 'uploads', clinicId: m[2]!, documentId: m[3]! } : null;
}

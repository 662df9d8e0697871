/** The documents module's process-wide parts: the storage driver and the scanner, chosen by the configuration. */
import type { DocumentsConfig } from '../../config.js';
import type { Db } from '../../db/transaction.js';
import { serverSecret } from '../../lib/server-secret.js';
import { ClamdScanner } from './scanner/clamd.js';
import { noScanner, type Scanner } from './scanner/scanner.js';
import { FsStorage } from './storage/fs.js';
import type { DocumentStorage } from './storage/storage.js';

export interface DocumentsRuntime {
  config: DocumentsConfig;
  store: DocumentStorage;
  scanner: Scanner;
  /** Signs the fs driver's links; the same in every process (stored in the database). */
  linkSecret: string;
}

/** What the services need: the database and the module's runtime (storage, scanner, configuration). */
export interface DocumentsDeps extends DocumentsRuntime {
  db: Db;
}

export const depsOf = (ctx: { db: Db; documents: DocumentsRuntime }): DocumentsDeps => ({ db: ctx.db, ...ctx.documents });

export async function createDocumentsRuntime(config: DocumentsConfig, db: Db): Promise<DocumentsRuntime> {
  const linkSecret = await serverSecret(db, 'document_link_secret');
  // The AWS SDK is loaded only for the s3 driver: importing its two packages alone takes 0.2 s
  // and leaves 3 MiB more heap after a full GC, which a process on the fs driver never uses.
  const store = config.s3 ? new (await import('./storage/s3.js')).S3Storage(config.s3) : new FsStorage(config.dir, linkSecret);
  const scanner = config.scanner.kind === 'clamd' ? new ClamdScanner(config.scanner) : noScanner;
  return { config, store, scanner, linkSecret };
}

/** A runtime that touches nothing (no secret, no folder, no store): for routes built only to be listed (the CLI's help). */
export function offlineDocumentsRuntime(config: DocumentsConfig): DocumentsRuntime {
  return { config, store: new FsStorage(config.dir, ''), scanner: noScanner, linkSecret: '' };
}

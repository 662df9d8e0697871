/**
 * The `fs` driver (default, embedded and single node): files in DOCUMENT_DIR, beside the data
 * folder. A write goes to a temporary file renamed into place, so a crash never leaves a
 * partial file under a document's key. Download links are the service's own signed URLs
 * (`/files/download/{token}`; links.ts); upload links are the service's with either driver.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomBytes } from 'node:crypto';
import type { DocumentStorage, LinkRequest, StoredObject } from './storage.js';
import { newNonce, signLink } from './links.js';

export class FsStorage implements DocumentStorage {
  readonly kind = 'fs' as const;

  constructor(
    readonly root: string,
    private readonly linkSecret: string,
  ) {}

  private path(key: string): string {
    // Keys are made by storage.ts from ids and nonces; refuse anything that could leave the root.
    if (!/^[a-z]+(\/[A-Za-z0-9_-]+)+$/.test(key)) throw new Error(`bad storage key ${key}`);
    return join(this.root, ...key.split('/'));
  }

  async write(key: string, body: Buffer | Readable, _sizeBytes: number, _contentType: string): Promise<void> {
    const target = this.path(key);
    await mkdir(dirname(target), { recursive: true });
    const temp = join(this.root, 'tmp', `${randomBytes(8).toString('hex')}.part`);
    await mkdir(dirname(temp), { recursive: true });
    try {
      await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, createWriteStream(temp, { flags: 'wx' }));
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  async read(key: string): Promise<Readable | null> {
    const path = this.path(key);
    if (!(await this.exists(key))) return null;
    return createReadStream(path, { highWaterMark: 256 * 1024 });
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.path(key))).isFile();
    } catch {
      return false;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    let entries: string[];
    try {
      entries = await readdir(join(this.root, prefix), { recursive: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = join(this.root, prefix, entry);
      const info = await stat(full).catch(() => null);
      if (!info?.isFile()) continue;
      yield { key: relative(this.root, full).split(sep).join('/'), lastModified: info.mtime };
    }
  }

  /** The link names the document, not the key: the route reads the key from its row. */
  async downloadLink(_key: string, link: LinkRequest): Promise<string> {
    const token = signLink(this.linkSecret, {
      op: 'download',
      clinicId: link.clinicId,
      documentId: link.documentId,
      nonce: newNonce(),
      expiresAt: link.expiresAt.getTime(),
    });
    return `${link.linkBase}/files/download/${token}`;
  }

  async close(): Promise<void> {}
}

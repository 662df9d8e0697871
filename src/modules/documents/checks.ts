/**
 * The checks a document's bytes pass before it becomes `available`: size and
 * SHA-256 as declared, and a real type (read from the bytes by `file-type`) that is allowed and
 * agrees with the declared one. The bytes are read as a stream: only the first 4100 bytes (what
 * `file-type` needs) are kept; whether they are plain text is decided on all of them as they pass
 * (text-check.ts). And the checks of a new document's body that need no database
 * (documentBodyIssues), for the service on a valid body and the route's `config.bodyIssues` on a
 * body its schema refused (src/lib/loose.ts).
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import { ALLOWED_CONTENT_TYPES, type AllowedContentType, type RejectedReason } from './schema.js';
import { TextCheck, type TextVerdict } from './text-check.js';
import type { ValidationIssue } from '../../core/errors.js';
import { record } from '../../lib/loose.js';

const HEAD_BYTES = 4100;

export interface Inspected {
  /** Bytes read; reading stops at one byte past the declared size. */
  size: number;
  sha256: string;
  head: Buffer;
  /** Whether every byte read is plain text (`text`), or not (`binary`), or text with markup (`markup`). */
  text: TextVerdict;
}

/**
 * Size, SHA-256, head and text verdict of bytes seen chunk by chunk: `inspect` below, and an upload link's body
 * on its way to the storage (service.ts `receiveUpload`), so those bytes are checked without
 * reading them back.
 */
export class Inspector {
  private readonly hash = createHash('sha256');
  private readonly head: Buffer[] = [];
  private headSize = 0;
  private readonly text = new TextCheck();
  size = 0;

  add(data: Buffer): void {
    this.size += data.length;
    this.hash.update(data);
    this.text.add(data);
    if (this.headSize < HEAD_BYTES) {
      this.head.push(data.subarray(0, HEAD_BYTES - this.headSize));
      this.headSize += Math.min(data.length, HEAD_BYTES - this.headSize);
    }
  }

  result(): Inspected {
    return { size: this.size, sha256: this.hash.digest('hex'), head: Buffer.concat(this.head), text: this.text.result() };
  }
}

/** Reads the stream once: size, hash, head. Stops (destroying the stream) once it holds more than `limit` bytes. */
export async function inspect(bytes: Readable, limit: number): Promise<Inspected> {
  const seen = new Inspector();
  for await (const chunk of bytes) {
    const data = chunk as Buffer;
    if (seen.size + data.length > limit) {
      // Only the count matters past the limit: the verdict is size_mismatch.
      seen.size += data.length;
      bytes.destroy();
      break;
    }
    seen.add(data);
  }
  return seen.result();
}

/** `application/pdf; charset=x` -> `application/pdf`; `image/jpg` is a common spelling of `image/jpeg`. */
export function normalizeContentType(value: string): string {
  const base = value.split(';')[0]!.trim().toLowerCase();
  return base === 'image/jpg' ? 'image/jpeg' : base;
}

function isAllowedType(value: string): value is AllowedContentType {
  return (ALLOWED_CONTENT_TYPES as readonly string[]).includes(value);
}

/**
 * The real type of the bytes, or null when it is none of the allowed ones. Plain text has no
 * magic number: it is text when every byte is (text-check.ts), and markup is not plain text.
 */
async function realType(found: Pick<Inspected, 'head' | 'text'>): Promise<AllowedContentType | null> {
  const magic = await fileTypeFromBuffer(found.head);
  if (magic) {
    const mime = magic.mime === 'image/heif' ? 'image/heic' : magic.mime;
    return isAllowedType(mime) ? mime : null;
  }
  return found.head.length > 0 && found.text === 'text' ? 'text/plain' : null;
}

/** The first failed check, or null when the bytes are what was declared. */
export async function verdict(found: Inspected, declared: { sizeBytes: number; sha256: string; contentType: string }): Promise<RejectedReason | null> {
  if (found.size !== declared.sizeBytes) return 'size_mismatch';
  if (found.sha256 !== declared.sha256.toLowerCase()) return 'checksum_mismatch';
  const type = await realType(found);
  if (type === null || type !== normalizeContentType(declared.contentType)) return 'type_not_allowed';
  return null;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A new document's body: an allowed type, a size within the deployment's `maxBytes`, content that is base64. */
export function documentBodyIssues(maxBytes: number): (body: unknown) => ValidationIssue[] {
  return (body) => {
    const b = record(body);
    const issues: ValidationIssue[] = [];
    if (typeof b.contentType === 'string' && !isAllowedType(normalizeContentType(b.contentType)))
      issues.push({ path: 'contentType', message: `tipo non ammesso: uno tra ${ALLOWED_CONTENT_TYPES.join(', ')}` });
    if (typeof b.sizeBytes === 'number' && b.sizeBytes > maxBytes) issues.push({ path: 'sizeBytes', message: `supera il massimo di ${maxBytes} byte` });
    if (typeof b.contentBase64 === 'string' && !BASE64.test(b.contentBase64)) issues.push({ path: 'contentBase64', message: 'non è base64 valido' });
    return issues;
  };
}

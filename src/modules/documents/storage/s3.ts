/**
 * The `s3` driver: any S3-compatible object store (S3_ENDPOINT, S3_BUCKET, credentials), so
 * several API processes on several hosts share the files. Downloads by link go straight to the
 * store (a presigned GET). Uploads by link do not: a presigned PUT cannot be made single-use by
 * the store (and conditional writes, `If-None-Match`, are not honoured by every S3-compatible
 * store), so the upload link is the service's own, single-use in the database, and the service
 * streams the body into the store here (`write`, one PutObject of the declared length).
 */
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { DocumentsConfig } from '../../../config.js';
import { attachment, servedType } from '../download.js';
import type { DocumentStorage, LinkRequest, StoredObject } from './storage.js';

type S3Settings = NonNullable<DocumentsConfig['s3']>;

const notFound = (error: unknown) =>
  error instanceof S3ServiceException && (error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404);

export class S3Storage implements DocumentStorage {
  readonly kind = 's3' as const;
  readonly client: S3Client;
  readonly bucket: string;

  constructor(settings: S3Settings) {
    this.bucket = settings.bucket;
    this.client = new S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
      // Otherwise a streamed body goes as `aws-chunked` with a trailing CRC32, which not every
      // S3-compatible store decodes (s3rver stores the chunk framing as if it were the file).
      // The service checks the SHA-256 of every byte itself.
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
  }

  async write(key: string, body: Buffer | Readable, sizeBytes: number, contentType: string): Promise<void> {
    if (Buffer.isBuffer(body)) {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentLength: sizeBytes, ContentType: contentType }));
      return;
    }
    // The SDK pipes the stream into the request and does not watch it: a body that fails
    // midway (the client went away, more or fewer bytes than declared) must abort the PUT, so
    // the store discards it (an object appears only once its whole body arrived) and the error
    // reaches the caller instead of an unhandled 'error' event.
    const abort = new AbortController();
    let failure: unknown = null;
    const onError = (error: unknown) => {
      failure ??= error;
      abort.abort(error);
    };
    // Kept after the PUT: a late error of the body must not become an unhandled event.
    body.on('error', onError);
    try {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentLength: sizeBytes, ContentType: contentType }), {
        abortSignal: abort.signal,
      });
    } catch (error) {
      throw failure ?? error;
    } finally {
      if (!body.destroyed) body.destroy();
    }
    if (failure) throw failure;
  }

  async read(key: string): Promise<Readable | null> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return out.Body as Readable;
    } catch (error) {
      if (notFound(error)) return null;
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (error) {
      if (notFound(error)) return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const item of page.Contents ?? []) if (item.Key) yield { key: item.Key, lastModified: item.LastModified ?? new Date() };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async downloadLink(key: string, link: LinkRequest): Promise<string> {
    const expiresIn = Math.max(1, Math.round((link.expiresAt.getTime() - Date.now()) / 1000));
    // The store answers with these two; it cannot add `X-Content-Type-Options` (README, Documents).
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: key,
        ResponseContentType: servedType(link.contentType),
        ResponseContentDisposition: attachment(link.filename ?? null),
      }),
      { expiresIn },
    );
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

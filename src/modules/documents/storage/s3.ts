/**
 * The `s3` driver: any S3-compatible object store (S3_ENDPOINT, S3_BUCKET, credentials), so
 * several API processes on several hosts share the files. Uploads and downloads go straight to
 * the store through presigned PUT / GET URLs; the API streams bytes only to check them.
 *
 * A presigned URL cannot be made single-use by the store: an upload lands on its own
 * `uploads/…` key and is promoted (server-side copy) to the document's key once checked, so a
 * second PUT to the same link writes bytes no document reads (the sweep deletes them).
 */
import type { Readable } from 'node:stream';
import {
  CopyObjectCommand,
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
    });
  }

  async write(key: string, body: Buffer | Readable, sizeBytes: number, contentType: string): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentLength: sizeBytes, ContentType: contentType }));
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

  async move(from: string, to: string): Promise<void> {
    await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: to, CopySource: `${this.bucket}/${from}` }));
    await this.delete(from);
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

  async uploadTarget(key: string, link: LinkRequest) {
    const expiresIn = Math.max(1, Math.round((link.expiresAt.getTime() - Date.now()) / 1000));
    const url = await getSignedUrl(this.client, new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: link.contentType }), { expiresIn });
    return { method: 'PUT' as const, url, headers: { 'content-type': link.contentType }, expiresAt: link.expiresAt.toISOString() };
  }

  async downloadLink(key: string, link: LinkRequest): Promise<string> {
    const expiresIn = Math.max(1, Math.round((link.expiresAt.getTime() - Date.now()) / 1000));
    const disposition = link.filename ? `attachment; filename*=UTF-8''${encodeURIComponent(link.filename)}` : 'attachment';
    return getSignedUrl(
      this.client,
      new GetObjectCommand({ Bucket: this.bucket, Key: key, ResponseContentType: link.contentType, ResponseContentDisposition: disposition }),
      { expiresIn },
    );
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

/**
 * The s3 driver against a real S3-protocol server started here (s3rver): the service's own
 * single-use upload link streaming into the store, presigned GET, complete, rejection, an
 * interrupted upload, purge and sweep, with the same service as the fs driver.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../../src/config.js';
import { finishExpiredUploads, sweepOrphanBytes } from '../../../src/modules/documents/jobs.js';
import { depsOf, purgeDueDocuments } from '../../../src/modules/documents/service.js';
import { signLink } from '../../../src/modules/documents/storage/links.js';
import type { S3Storage } from '../../../src/modules/documents/storage/s3.js';
import type { DentalClinicClient } from '../../../packages/client/src/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import type { Tenant } from '../../helpers/factories.js';
import { announced, inline, patient, pdf, sha256, type DocumentInput } from './helpers.js';

let s3: S3rver;
let s3Dir: string;
let server: TestServer;
let t: Tenant;
let api: DentalClinicClient;
let patientId: string;

beforeAll(async () => {
  s3Dir = mkdtempSync(join(tmpdir(), 'dcm-s3-'));
  s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3Dir });
  const { port } = await s3.run();
  const base = testConfig();
  server = await startTestServer({
    config: {
      documents: {
        ...base.documents,
        storage: 's3',
        s3: {
          endpoint: `http://127.0.0.1:${port}`,
          bucket: 'dcm-documents',
          region: 'us-east-1',
          accessKeyId: 'S3RVER',
          secretAccessKey: 'S3RVER',
          forcePathStyle: true,
        },
      },
    },
  });
  const store = server.ctx.documents.store as S3Storage;
  await store.client.send(new CreateBucketCommand({ Bucket: store.bucket }));
  t = await server.factories.tenant();
  api = server.api(t.token);
  patientId = await patient(server, t.token, t.facilityIds[0]);
});
afterAll(async () => {
  await server?.close();
  await s3?.close();
  rmSync(s3Dir, { recursive: true, force: true });
});

const put = (url: string, bytes: Buffer, contentType = 'application/pdf') =>
  fetch(url, { method: 'PUT', body: bytes as unknown as BodyInit, headers: { 'content-type': contentType } });
const keyOf = (id: string) => `documents/${t.clinicId}/${id}`;

/** The bytes under a key of the bucket, or null. */
async function stored(key: string): Promise<Buffer | null> {
  const body = await server.ctx.documents.store.read(key);
  if (!body) return null;
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function keysUnder(prefix: string): Promise<string[]> {
  const keys = [];
  for await (const o of server.ctx.documents.store.list(prefix)) keys.push(o.key);
  return keys;
}

/** createDocument through the typed client: the answer must be 201. */
const createDocument = async (body: DocumentInput) => {
  const { data, response } = await api.callWithResponse('createDocument', { body });
  expect(response.status).toBe(201);
  return data;
};
const getDocument = (id: string) => api.call('getDocument', { params: { path: { id } } });
const complete = (id: string) => api.callWithResponse('completeDocument', { params: { path: { id } } });
/** The bytes of a document, typed by the contract's path. */
const contentOf = async (id: string) => {
  const { data, response } = await api.raw.GET('/documents/{id}/content', { params: { path: { id } }, parseAs: 'arrayBuffer' });
  expect(response.status).toBe(200);
  return Buffer.from(data!);
};

const rowOf = (id: string) => server.ctx.db.selectFrom('documents').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('s3 storage', () => {
  it("stores inline bytes in the bucket and streams them back; a download link is the store's presigned GET", async () => {
    expect(server.ctx.documents.store.kind).toBe('s3');
    const bytes = pdf(300_000);
    const res = await createDocument(inline(patientId, bytes));
    expect(res.status).toBe('available');
    expect(sha256(await contentOf(res.id))).toBe(sha256(bytes));
    const link = await api.call('getDocumentContent', { params: { path: { id: res.id }, query: { delivery: 'link' } } });
    expect(link.url.startsWith(server.ctx.config.documents.s3!.endpoint)).toBe(true);
    const direct = await fetch(link.url);
    expect(direct.status).toBe(200);
    expect(sha256(Buffer.from(await direct.arrayBuffer()))).toBe(sha256(bytes));
  });

  it("uploads through the service's single-use link, streamed into the store and checked; a second use is refused and changes nothing", async () => {
    const bytes = pdf(1_500_000);
    const created = await createDocument(announced(patientId, bytes));
    expect(created).toMatchObject({ status: 'pending_upload', upload: { method: 'PUT', headers: { 'content-type': 'application/pdf' } } });
    const { url, headers } = created.upload!;
    expect(url.startsWith(`${server.url}/files/upload/`)).toBe(true);
    await expect(complete(created.id)).rejects.toMatchObject({ status: 409, details: { reason: 'upload_missing' } });

    const up = await put(url, bytes, headers['content-type']);
    expect(up.status).toBe(200);
    expect(await up.json()).toEqual({ id: created.id, status: 'available', rejectedReason: null });
    expect(sha256((await stored(keyOf(created.id)))!)).toBe(sha256(bytes));
    expect(await keysUnder(`uploads/${t.clinicId}/`)).toEqual([]);
    const before = await getDocument(created.id);
    expect(before.status).toBe('available');

    // The same link again, with other bytes: refused before a byte is read, as with fs.
    const again = await put(url, pdf(1_500_000), headers['content-type']);
    expect(again.status).toBe(403);
    expect((await again.json()).error.details.reason).toBe('link_used');
    expect(sha256((await stored(keyOf(created.id)))!)).toBe(sha256(bytes));
    expect(await getDocument(created.id)).toEqual(before);
    expect(await keysUnder(`uploads/${t.clinicId}/`)).toEqual([]);

    // complete is idempotent once the upload was checked.
    for (let i = 0; i < 2; i++) {
      const done = await complete(created.id);
      expect(done.response.status).toBe(200);
      expect(done.data).toEqual(before);
    }
    expect(sha256(await contentOf(created.id))).toBe(sha256(bytes));
  });

  it('refuses an expired link and stores nothing; the job then rejects the document as upload_expired', async () => {
    const bytes = pdf(4000);
    const created = await createDocument(announced(patientId, bytes));
    const token = created.upload!.url.split('/files/upload/')[1]!;
    const packed = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString());
    const expired = signLink(server.ctx.documents.linkSecret, {
      op: 'upload',
      clinicId: packed.c,
      documentId: packed.d,
      nonce: packed.n,
      expiresAt: Date.now() - 1000,
    });
    const res = await put(`${server.url}/files/upload/${expired}`, bytes);
    expect(res.status).toBe(403);
    expect((await res.json()).error.details.reason).toBe('link_expired');
    expect(await stored(keyOf(created.id))).toBeNull();
    expect((await rowOf(created.id)).status).toBe('pending_upload');

    await server.ctx.db
      .updateTable('documents')
      .set({ upload_expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', created.id)
      .execute();
    await finishExpiredUploads(depsOf(server.ctx));
    const after = await getDocument(created.id);
    expect(after).toMatchObject({ status: 'rejected', rejectedReason: 'upload_expired' });
    // A link minted for a document that no longer waits is refused too.
    expect((await (await put(created.upload!.url, bytes)).json()).error.details.reason).toBe('link_used');
    expect(await stored(keyOf(created.id))).toBeNull();
  });

  it('rejects bad uploads with their reason and deletes their bytes from the store', async () => {
    const bytes = pdf(20_000);
    const cases: { declared: Partial<DocumentInput>; sent: Buffer; reason: string }[] = [
      { declared: { contentType: 'image/jpeg' }, sent: bytes, reason: 'type_not_allowed' },
      { declared: {}, sent: pdf(20_000), reason: 'checksum_mismatch' },
      { declared: {}, sent: bytes.subarray(0, 5000), reason: 'size_mismatch' },
    ];
    for (const c of cases) {
      const created = await createDocument(announced(patientId, bytes, c.declared));
      const up = await put(created.upload!.url, c.sent, created.upload!.headers['content-type']);
      expect(up.status).toBe(200);
      expect(await up.json()).toEqual({ id: created.id, status: 'rejected', rejectedReason: c.reason });
      expect(await stored(keyOf(created.id))).toBeNull();
      const row = await getDocument(created.id);
      expect(row).toMatchObject({ status: 'rejected', rejectedReason: c.reason });
      expect(row.purgedAt).not.toBeNull();
    }

    // More bytes than declared: 400, nothing stored, the document still waits and the link may be used again.
    const created = await createDocument(announced(patientId, bytes));
    const over = await put(created.upload!.url, Buffer.concat([bytes, Buffer.alloc(100_000)]));
    expect(over.status).toBe(400);
    expect(await stored(keyOf(created.id))).toBeNull();
    expect((await rowOf(created.id)).status).toBe('pending_upload');
    expect(await (await put(created.upload!.url, bytes)).json()).toMatchObject({ status: 'available' });
    expect(sha256((await stored(keyOf(created.id)))!)).toBe(sha256(bytes));
  });

  it('an upload cut off midway leaves no bytes and no available document, and frees the link', async () => {
    const bytes = pdf(3_000_000);
    const created = await createDocument(announced(patientId, bytes));
    const url = new URL(created.upload!.url);
    const nonce = JSON.parse(Buffer.from(url.pathname.split('/').pop()!.split('.')[0]!, 'base64url').toString()).n as string;
    const linkUse = () => server.ctx.db.selectFrom('document_link_uses').selectAll().where('nonce', '=', nonce).executeTakeFirst();

    // s3rver writes an object in place as its bytes arrive (a real S3 shows an object only once
    // its PUT completed): its file under the bucket's folder says the store is receiving them.
    const inStore = () => {
      const dir = join(s3Dir, 'dcm-documents', 'documents', t.clinicId);
      return existsSync(dir) && readdirSync(dir).some((f) => f.startsWith(created.id) && statSync(join(dir, f)).size > 0);
    };

    // The client sends half the declared bytes, then goes away.
    const req = httpRequest(url, { method: 'PUT', headers: { 'content-type': 'application/pdf', 'content-length': String(bytes.length) } });
    req.on('error', () => undefined);
    req.write(bytes.subarray(0, 1_500_000));
    for (let i = 0; i < 250 && !inStore(); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await linkUse()).toBeDefined();
    expect(inStore()).toBe(true);
    req.destroy();
    // The server notices, aborts the PUT to the store and frees the link.
    for (let i = 0; i < 250 && (await linkUse()); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await linkUse()).toBeUndefined();
    expect(await stored(keyOf(created.id))).toBeNull();
    expect((await rowOf(created.id)).status).toBe('pending_upload');
    await expect(api.call('getDocumentContent', { params: { path: { id: created.id } } })).rejects.toMatchObject({ status: 409 });
    await expect(complete(created.id)).rejects.toMatchObject({ details: { reason: 'upload_missing' } });

    // The same link, sent whole this time.
    expect(await (await put(created.upload!.url, bytes)).json()).toMatchObject({ status: 'available' });
    expect(sha256((await stored(keyOf(created.id)))!)).toBe(sha256(bytes));
  });

  it('a process that stopped between storing the bytes and the row: complete (or the job) finishes it', async () => {
    const bytes = pdf(4000);
    const created = await createDocument(announced(patientId, bytes));
    const row = await rowOf(created.id);
    await server.ctx.documents.store.write(row.storage_key, bytes, bytes.length, 'application/pdf');
    expect((await getDocument(row.id)).status).toBe('pending_upload');
    expect((await complete(row.id)).data.status).toBe('available');
  });

  it('purges archived bytes; sweeps leftovers under uploads/ and bytes without a row', async () => {
    const kept = await createDocument(inline(patientId, pdf(700)));
    await api.call('archiveDocument', { params: { path: { id: kept.id } } });
    await server.ctx.db
      .updateTable('documents')
      .set({ archived_at: new Date(Date.now() - 40 * 86_400_000) })
      .where('id', '=', kept.id)
      .execute();
    await purgeDueDocuments(depsOf(server.ctx));
    expect(await server.ctx.documents.store.exists(keyOf(kept.id))).toBe(false);

    const live = await createDocument(inline(patientId, pdf(900)));
    const store = server.ctx.documents.store;
    const leftover = `uploads/${t.clinicId}/${live.id}/oldPresignedPut`;
    const orphan = keyOf('11111111-1111-4111-8111-111111111111');
    await store.write(leftover, pdf(100), 100, 'application/pdf');
    await store.write(orphan, pdf(100), 100, 'application/pdf');
    await sweepOrphanBytes(depsOf(server.ctx), Date.now() + 2 * 3600_000);
    expect(await store.exists(leftover)).toBe(false);
    expect(await store.exists(orphan)).toBe(false);
    expect(await store.exists(keyOf(live.id))).toBe(true);
  });

  it('serves the upload links, not the download links (the store serves the bytes)', async () => {
    const urls = server.app.plannedRoutes.map((r) => r.url);
    expect(urls).toContain('/files/upload/:token');
    expect(urls.some((u) => u.startsWith('/files/download/'))).toBe(false);
  });
});

/**
 * The s3 driver against a real S3-protocol server started here (s3rver): presigned PUT and GET,
 * complete, rejection, purge and sweep, with the same service as the fs driver.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { sweepOrphanBytes } from '../../src/modules/documents/jobs.js';
import { depsOf, purgeDueDocuments } from '../../src/modules/documents/service.js';
import type { S3Storage } from '../../src/modules/documents/storage/s3.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { Tenant } from '../helpers/factories.js';
import { announced, inline, patient, pdf, sha256 } from './helpers.js';

let s3: S3rver;
let s3Dir: string;
let server: TestServer;
let t: Tenant;
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
  patientId = await patient(server, t.token, t.facilityIds[0]);
});
afterAll(async () => {
  await server?.close();
  await s3?.close();
  rmSync(s3Dir, { recursive: true, force: true });
});

const put = (url: string, bytes: Buffer, headers: Record<string, string>) => fetch(url, { method: 'PUT', body: bytes as unknown as BodyInit, headers });

describe('s3 storage', () => {
  it('stores inline bytes in the bucket and streams them back', async () => {
    expect(server.ctx.documents.store.kind).toBe('s3');
    const bytes = pdf(300_000);
    const res = await server.call('POST', '/v1/documents', { token: t.token, body: inline(patientId, bytes) });
    expect(res.body.status).toBe('available');
    const content = await fetch(`${server.url}/v1/documents/${res.body.id}/content`, { headers: { authorization: `Bearer ${t.token}` } });
    expect(sha256(Buffer.from(await content.arrayBuffer()))).toBe(sha256(bytes));
    const link = await server.call('GET', `/v1/documents/${res.body.id}/content?delivery=link`, { token: t.token });
    expect(link.body.url.startsWith(server.ctx.config.documents.s3!.endpoint)).toBe(true);
    const direct = await fetch(link.body.url);
    expect(direct.status).toBe(200);
    expect(sha256(Buffer.from(await direct.arrayBuffer()))).toBe(sha256(bytes));
  });

  it('uploads through a presigned PUT, then complete checks and promotes the bytes', async () => {
    const bytes = pdf(1_500_000);
    const created = await server.call('POST', '/v1/documents', { token: t.token, body: announced(patientId, bytes) });
    expect(created.body.status).toBe('pending_upload');
    const { url, headers } = created.body.upload;
    expect(url.startsWith(server.ctx.config.documents.s3!.endpoint)).toBe(true);
    const early = await server.call('POST', `/v1/documents/${created.body.id}/complete`, { token: t.token });
    expect(early.body.error.details.reason).toBe('upload_missing');
    expect((await put(url, bytes, headers)).status).toBe(200);
    const done = await server.call('POST', `/v1/documents/${created.body.id}/complete`, { token: t.token });
    expect(done.body).toMatchObject({ status: 'available' });
    const store = server.ctx.documents.store;
    expect(await store.exists(`documents/${t.clinicId}/${created.body.id}`)).toBe(true);

    // A second PUT to the same URL writes bytes no document reads; the sweep deletes them.
    expect((await put(url, pdf(1000), headers)).status).toBe(200);
    const content = await fetch(`${server.url}/v1/documents/${created.body.id}/content`, { headers: { authorization: `Bearer ${t.token}` } });
    expect(sha256(Buffer.from(await content.arrayBuffer()))).toBe(sha256(bytes));
    const uploads = [];
    for await (const o of store.list(`uploads/${t.clinicId}/`)) uploads.push(o.key);
    expect(uploads).toHaveLength(1);
    await sweepOrphanBytes(depsOf(server.ctx), Date.now() + 2 * 3600_000);
    expect(await store.exists(uploads[0]!)).toBe(false);
    expect(await store.exists(`documents/${t.clinicId}/${created.body.id}`)).toBe(true);
  });

  it('rejects uploaded bytes of another type and deletes them; purge removes archived bytes', async () => {
    const bytes = pdf(5000);
    const created = await server.call('POST', '/v1/documents', { token: t.token, body: announced(patientId, bytes, { contentType: 'image/jpeg' }) });
    await put(created.body.upload.url, bytes, created.body.upload.headers);
    const done = await server.call('POST', `/v1/documents/${created.body.id}/complete`, { token: t.token });
    expect(done.body).toMatchObject({ status: 'rejected', rejectedReason: 'type_not_allowed' });
    const keys = [];
    for await (const o of server.ctx.documents.store.list(`uploads/${t.clinicId}/${created.body.id}`)) keys.push(o.key);
    expect(keys).toEqual([]);

    const kept = await server.call('POST', '/v1/documents', { token: t.token, body: inline(patientId, pdf(700)) });
    await server.call('DELETE', `/v1/documents/${kept.body.id}`, { token: t.token });
    await server.ctx.db
      .updateTable('documents')
      .set({ archived_at: new Date(Date.now() - 40 * 86_400_000) })
      .where('id', '=', kept.body.id)
      .execute();
    await purgeDueDocuments(depsOf(server.ctx));
    expect(await server.ctx.documents.store.exists(`documents/${t.clinicId}/${kept.body.id}`)).toBe(false);
  });

  it('has no /files routes (the store serves the bytes)', async () => {
    expect(server.app.plannedRoutes.some((r) => r.url.startsWith('/files/'))).toBe(false);
  });
});

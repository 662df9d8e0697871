/** Documents with the default fs storage and no scanner, on both engines. */
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishExpiredUploads, sweepOrphanBytes } from '../../../src/modules/documents/jobs.js';
import { depsOf, finishUpload, purgeDueDocuments } from '../../../src/modules/documents/service.js';
import { signLink } from '../../../src/modules/documents/storage/links.js';
import type { ApiClientError, DentalClinicClient } from '../../../packages/client/src/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import type { Tenant } from '../../helpers/factories.js';
import { announced, inline, patient, pdf, png, sha256, text, type DocumentInput } from './helpers.js';

let server: TestServer;
let t: Tenant;
let api: DentalClinicClient;
let patientId: string;

/** createDocument through the typed client: the answer must be 201 (a rejected upload is a 201 too). */
const createDocument = async (body: DocumentInput, client = api) => {
  const { data, response } = await client.callWithResponse('createDocument', { body });
  expect(response.status).toBe(201);
  return data;
};
/** The bytes of a document, typed by the contract's path. */
const contentOf = (id: string, client = api) => client.raw.GET('/documents/{id}/content', { params: { path: { id } }, parseAs: 'arrayBuffer' });

const filesOf = (dir: string) => (existsSync(dir) ? readdirSync(dir, { recursive: true }).filter((f) => statSync(join(dir, String(f))).isFile()) : []);

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
  api = server.api(t.token);
  patientId = await patient(server, t.token, t.facilityIds[0]);
});
afterAll(async () => server?.close());

const put = (url: string, bytes: Buffer, contentType = 'application/pdf') =>
  fetch(url, { method: 'PUT', body: bytes as unknown as BodyInit, headers: { 'content-type': contentType } });

describe('inline upload (one call)', () => {
  it('stores a checked PDF and serves its bytes, access-logged', async () => {
    const bytes = pdf(5000);
    const res = await createDocument(inline(patientId, bytes));
    expect(res).toMatchObject({
      status: 'available',
      scanResult: 'not_scanned',
      sizeBytes: 5000,
      sha256: sha256(bytes),
      origin: 'api',
      patientId,
      facilityId: t.facilityIds[0],
    });
    expect(res.upload).toBeUndefined();
    const content = await contentOf(res.id);
    expect(content.response.status).toBe(200);
    expect(content.response.headers.get('content-type')).toBe('application/pdf');
    expect(content.response.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''preventivo.pdf");
    expect(Buffer.from(content.data!).equals(bytes)).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    const logged = await server.ctx.db
      .selectFrom('access_log')
      .innerJoin('access_log_resources as r', 'r.id', 'access_log.resources_id')
      .select(['access_log.fields', 'r.resource_type'])
      .where('access_log.clinic_id', '=', t.clinicId)
      .where('r.resource_type', '=', 'document')
      .execute();
    expect(logged.map((l) => l.fields)).toContainEqual(['content']);
  });

  it('rejects bytes that are not what was declared, and keeps none of them', async () => {
    const bytes = pdf(3000);
    const cases: Array<[DocumentInput, string]> = [
      [inline(patientId, bytes, { sha256: sha256(Buffer.from('other')) }), 'checksum_mismatch'],
      [inline(patientId, bytes, { sizeBytes: 2999 }), 'size_mismatch'],
      [inline(patientId, png(), { contentType: 'application/pdf' }), 'type_not_allowed'],
      [inline(patientId, Buffer.from('504b030414000000080000000000', 'hex'), { contentType: 'application/pdf' }), 'type_not_allowed'],
      [inline(patientId, Buffer.from([0, 1, 2, 3, 0, 0, 7]), { contentType: 'text/plain' }), 'type_not_allowed'],
    ];
    const before = filesOf(server.ctx.config.documents.dir).length;
    for (const [body, reason] of cases) {
      const res = await api.callWithResponse('createDocument', { body });
      expect(res.response.status, JSON.stringify(body).slice(0, 80)).toBe(201);
      expect(res.data).toMatchObject({ status: 'rejected', rejectedReason: reason });
      expect(res.data.purgedAt).not.toBeNull();
      await expect(api.call('getDocumentContent', { params: { path: { id: res.data.id } } })).rejects.toMatchObject({
        status: 409,
        details: { reason: 'not_available', status: 'rejected' },
      });
    }
    expect(filesOf(server.ctx.config.documents.dir).length).toBe(before);
  });

  it('accepts PNG and plain text when declared as such', async () => {
    for (const [bytes, type] of [
      [png(), 'image/png'],
      [text('Lettera di invio: ortopantomografia.\nGrazie.'), 'text/plain; charset=utf-8'],
    ] as const) {
      const res = await api.call('createDocument', { body: inline(patientId, bytes, { contentType: type, category: 'other' }) });
      expect(res.status, type).toBe('available');
    }
  });

  it('names every wrong field at once with 400, and writes nothing', async () => {
    const count = async () =>
      (
        await server.ctx.db
          .selectFrom('documents')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    const before = await count();
    // Deliberately wrong bodies (validation): raw calls.
    const res = await server.call('POST', '/v1/documents', {
      token: t.token,
      body: {
        ...inline('00000000-0000-4000-8000-000000000000', pdf(100), { contentType: 'application/zip', sizeBytes: 26 * 1_048_576 }),
        contentBase64: 'not base64!',
      },
    });
    expect(res.status).toBe(400);
    const paths = res.body.error.details.issues.map((i: { path: string }) => i.path).sort();
    expect(paths).toEqual(['contentBase64', 'contentType', 'sizeBytes']);
    const refs = await server.call('POST', '/v1/documents', {
      token: t.token,
      body: inline('00000000-0000-4000-8000-000000000000', pdf(100), {
        invoiceId: '00000000-0000-4000-8000-000000000001',
        appointmentId: '00000000-0000-4000-8000-000000000002',
      }),
    });
    expect(refs.status).toBe(400);
    expect(refs.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['appointmentId', 'invoiceId', 'patientId']);
    const schema = await server.call('POST', '/v1/documents', { token: t.token, body: { patientId, category: 'scan', sha256: 'xyz', sizeBytes: 0 } });
    expect(schema.status).toBe(400);
    expect(schema.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(
      expect.arrayContaining(['category', 'sha256', 'sizeBytes', 'title', 'filename', 'contentType']),
    );
    expect(await count()).toBe(before);
  });

  it('takes a body over the JSON limit on this route only (4 MiB inline)', async () => {
    const bytes = pdf(3 * 1_048_576);
    const res = await createDocument(inline(patientId, bytes));
    expect(res.status).toBe('available');
    await expect(api.call('createDocument', { body: inline(patientId, pdf(4 * 1_048_576 + 10)) })).rejects.toMatchObject({ status: 400 });
    await expect(api.call('createPatient', { body: { firstName: 'x'.repeat(2 * 1_048_576), lastName: 'y' } })).rejects.toMatchObject({ status: 400 });
  });

  it('replays a creation with the same Idempotency-Key', async () => {
    const body = inline(patientId, pdf(700));
    // Our own key: the client keeps a key the caller set.
    const headers = { 'Idempotency-Key': `doc-${Date.now()}` };
    const first = await api.callWithResponse('createDocument', { body, headers });
    const second = await api.callWithResponse('createDocument', { body, headers });
    expect(second.response.status).toBe(201);
    expect(second.response.headers.get('idempotent-replayed')).toBe('true');
    expect(second.data.id).toBe(first.data.id);
  });
});

describe('upload link, then complete', () => {
  it('checks the bytes on PUT; the link is single-use; complete answers the outcome', async () => {
    const bytes = pdf(200_000);
    const created = await createDocument(announced(patientId, bytes));
    expect(created).toMatchObject({ status: 'pending_upload', upload: { method: 'PUT', headers: { 'content-type': 'application/pdf' } } });
    const { url, expiresAt } = created.upload!;
    expect(url.startsWith(`${server.url}/files/upload/`)).toBe(true);
    const minutes = (Date.parse(expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(14);
    expect(minutes).toBeLessThanOrEqual(15);

    await expect(api.call('completeDocument', { params: { path: { id: created.id } } })).rejects.toMatchObject({
      status: 409,
      details: { reason: 'upload_missing' },
    });

    const up = await put(url, bytes);
    expect(up.status).toBe(200);
    expect(await up.json()).toEqual({ id: created.id, status: 'available', rejectedReason: null });
    const again = await put(url, bytes);
    expect(again.status).toBe(403);
    expect((await again.json()).error.details.reason).toBe('link_used');

    const done = await api.callWithResponse('completeDocument', { params: { path: { id: created.id } } });
    expect(done.response.status).toBe(200);
    expect(done.data.status).toBe('available');
    const content = await contentOf(created.id);
    expect(sha256(Buffer.from(content.data!))).toBe(sha256(bytes));
  });

  it('refuses more bytes than declared, and the link can be used again after that failure', async () => {
    const bytes = pdf(10_000);
    const created = await createDocument(announced(patientId, bytes));
    const over = await put(created.upload!.url, Buffer.concat([bytes, Buffer.alloc(10)]));
    expect(over.status).toBe(400);
    const row = await api.call('getDocument', { params: { path: { id: created.id } } });
    expect(row.status).toBe('pending_upload');
    const ok = await put(created.upload!.url, bytes);
    expect(ok.status).toBe(200);
  });

  it('rejects wrong uploaded bytes with the reason, and deletes them', async () => {
    const bytes = pdf(10_000);
    const created = await createDocument(announced(patientId, bytes));
    const wrong = pdf(10_000);
    const up = await put(created.upload!.url, wrong);
    expect(await up.json()).toMatchObject({ status: 'rejected', rejectedReason: 'checksum_mismatch' });
    const short = await createDocument(announced(patientId, bytes));
    expect(await (await put(short.upload!.url, bytes.subarray(0, 5000))).json()).toMatchObject({ rejectedReason: 'size_mismatch' });
    const docs = filesOf(server.ctx.config.documents.dir).map(String);
    expect(docs.some((f) => f.includes(created.id) || f.includes(short.id))).toBe(false);
  });

  it('refuses a tampered, expired or download link with 403', async () => {
    const bytes = pdf(1000);
    const created = await createDocument(announced(patientId, bytes));
    const url = created.upload!.url;
    const tampered = url.slice(0, -3) + (url.endsWith('AAA') ? 'BBB' : 'AAA');
    expect((await (await put(tampered, bytes)).json()).error.details.reason).toBe('link_invalid');
    const token = url.split('/files/upload/')[1]!;
    const packed = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString());
    const expired = signLink(server.ctx.documents.linkSecret, {
      op: 'upload',
      clinicId: packed.c,
      documentId: packed.d,
      nonce: packed.n,
      expiresAt: Date.now() - 1000,
    });
    expect((await (await put(`${server.url}/files/upload/${expired}`, bytes)).json()).error.details.reason).toBe('link_expired');
    const asDownload = await fetch(`${server.url}/files/download/${token}`);
    expect(asDownload.status).toBe(403);
  });

  it('rejects an upload that never came as upload_expired (the job), and finishes one nobody completed', async () => {
    const deps = depsOf(server.ctx);
    const bytes = pdf(4000);
    const never = await createDocument(announced(patientId, bytes));
    const uncompleted = await createDocument(announced(patientId, bytes));
    // The upload's bytes were stored, then the process stopped before settling the row; nobody called complete.
    const row = await server.ctx.db.selectFrom('documents').selectAll().where('id', '=', uncompleted.id).executeTakeFirstOrThrow();
    await deps.store.write(row.storage_key, bytes, bytes.length, 'application/pdf');
    await server.ctx.db
      .updateTable('documents')
      .set({ upload_expires_at: new Date(Date.now() - 1000) })
      .where('id', 'in', [never.id, uncompleted.id])
      .execute();
    await finishExpiredUploads(deps);
    const a = await api.call('getDocument', { params: { path: { id: never.id } } });
    expect(a).toMatchObject({ status: 'rejected', rejectedReason: 'upload_expired' });
    const b = await api.call('getDocument', { params: { path: { id: uncompleted.id } } });
    expect(b.status).toBe('available');
    // Their links, still within their 15 minutes, take no bytes: the documents no longer wait for them.
    for (const doc of [never, uncompleted]) {
      const late = await put(doc.upload!.url, bytes);
      expect(late.status).toBe(403);
      expect((await late.json()).error.details.reason).toBe('link_used');
    }
    expect(await api.call('getDocument', { params: { path: { id: never.id } } })).toMatchObject({ status: 'rejected', rejectedReason: 'upload_expired' });
  });

  it('a crash between storing the bytes and the row leaves it pending, and complete finishes it', async () => {
    const deps = depsOf(server.ctx);
    const bytes = pdf(4000);
    const created = await createDocument(announced(patientId, bytes));
    const row = await server.ctx.db.selectFrom('documents').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    await deps.store.write(row.storage_key, bytes, bytes.length, 'application/pdf'); // ... and the process stopped here
    expect((await api.call('getDocument', { params: { path: { id: row.id } } })).status).toBe('pending_upload');
    expect((await api.call('completeDocument', { params: { path: { id: row.id } } })).status).toBe('available');
    expect((await finishUpload(deps, row)).status).toBe('available');
  });
});

describe('reading', () => {
  it('lists with filters and cursor pages; clinical categories need clinical:read', async () => {
    const other = await patient(server, t.token);
    for (const category of ['xray', 'invoice', 'photo'] as const) {
      const bytes = category === 'photo' ? png() : pdf(300);
      await createDocument(inline(other, bytes, { category, contentType: category === 'photo' ? 'image/png' : 'application/pdf' }));
    }
    const all = await api.call('listDocuments', { params: { query: { patientId: other, limit: 2 } } });
    expect(all.data).toHaveLength(2);
    const next = await api.call('listDocuments', { params: { query: { patientId: other, limit: 2, cursor: all.nextCursor! } } });
    expect(next.data).toHaveLength(1);
    expect(next.nextCursor).toBeNull();
    expect((await api.call('listDocuments', { params: { query: { patientId: other, category: 'xray' } } })).data).toHaveLength(1);

    const plain = server.api((await server.factories.key(t.clinicId, ['documents:read', 'documents:write', 'patients:read'])).token);
    const visible = await plain.call('listDocuments', { params: { query: { patientId: other } } });
    expect(visible.data.map((d) => d.category)).toEqual(['invoice']);
    await expect(plain.call('listDocuments', { params: { query: { category: 'xray' } } })).rejects.toMatchObject({ status: 403 });
    const xray = all.data.find((d) => d.category === 'xray') ?? next.data[0]!;
    await expect(plain.call('getDocument', { params: { path: { id: xray.id } } })).rejects.toMatchObject({
      status: 403,
      details: { requiredScopes: ['clinical:read'] },
    });
    await expect(plain.call('createDocument', { body: inline(other, pdf(100), { category: 'lab' }) })).rejects.toMatchObject({
      status: 403,
      details: { requiredScopes: ['clinical:write'] },
    });
  });

  it('gives a short-lived single-use download link', async () => {
    const bytes = pdf(1234);
    const created = await createDocument(inline(patientId, bytes));
    const link = await api.callWithResponse('getDocumentContent', { params: { path: { id: created.id }, query: { delivery: 'link' } } });
    expect(link.response.status).toBe(200);
    expect(link.data).toMatchObject({ contentType: 'application/pdf', sizeBytes: 1234 });
    const first = await fetch(link.data.url);
    expect(first.status).toBe(200);
    expect(Buffer.from(await first.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await fetch(link.data.url)).status).toBe(403);
  });
});

describe('archive, retention, erase, chat', () => {
  it('archives; the bytes stay until the retention purge', async () => {
    const bytes = pdf(800);
    const created = await createDocument(inline(patientId, bytes));
    const id = created.id;
    expect((await api.callWithResponse('archiveDocument', { params: { path: { id } } })).response.status).toBe(204);
    expect((await api.callWithResponse('archiveDocument', { params: { path: { id } } })).response.status).toBe(204);
    const listed = await api.call('listDocuments', { params: { query: { patientId, limit: 200 } } });
    expect(listed.data.some((d) => d.id === id)).toBe(false);
    const archived = await api.call('getDocument', { params: { path: { id } } });
    expect(archived.archivedAt).not.toBeNull();
    expect((await contentOf(id)).response.status).toBe(200);

    const deps = depsOf(server.ctx);
    await purgeDueDocuments(deps);
    expect((await contentOf(id)).response.status).toBe(200);
    await server.ctx.db
      .updateTable('documents')
      .set({ archived_at: new Date(Date.now() - 31 * 86_400_000) })
      .where('id', '=', id)
      .execute();
    await purgeDueDocuments(deps);
    await expect(api.call('getDocumentContent', { params: { path: { id } } })).rejects.toMatchObject({
      status: 409,
      details: { reason: 'not_available', purged: true },
    });
    expect(await deps.store.exists(`documents/${t.clinicId}/${id}`)).toBe(false);
  });

  it("erasing a patient purges their documents' bytes at once", async () => {
    const victim = await patient(server, t.token);
    const created = await createDocument(inline(victim, pdf(900)));
    const key = `documents/${t.clinicId}/${created.id}`;
    expect(await server.ctx.documents.store.exists(key)).toBe(true);
    const erased = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/patients/${victim}/erase`);
    expect(erased.status).toBe(200);
    expect(await server.ctx.documents.store.exists(key)).toBe(false);
    const doc = await api.call('getDocument', { params: { path: { id: created.id } } });
    expect(doc).toMatchObject({ title: null, filename: null });
    expect(doc.purgedAt).not.toBeNull();
  });

  it('a download link given before the bytes were purged answers 404 after, to a HEAD as well', async () => {
    const victim = await patient(server, t.token);
    const created = await createDocument(inline(victim, pdf(700)));
    const link = await api.call('getDocumentContent', { params: { path: { id: created.id }, query: { delivery: 'link' } } });
    expect((await fetch(link.url, { method: 'HEAD' })).status).toBe(200);
    expect((await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/patients/${victim}/erase`)).status).toBe(200);
    expect((await fetch(link.url, { method: 'HEAD' })).status).toBe(404);
    const res = await fetch(link.url);
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('not_found');
  });

  it('links a chat message with media to its document', async () => {
    const conv = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/conversations`, { patientId, facilityId: t.facilityIds[0] });
    expect(conv.status).toBe(201);
    const media = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/conversations/${conv.body.id}/messages`, {
      direction: 'in',
      type: 'immagine',
      mediaMimeType: 'image/png',
    });
    expect(media.status).toBe(201);
    const textOnly = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/conversations/${conv.body.id}/messages`, { direction: 'in', body: 'ciao' });
    const bad = await api
      .call('createDocument', {
        body: inline(patientId, png(), { category: 'photo', contentType: 'image/png', chatMessageId: textOnly.body.message.id }),
      })
      .then(
        () => null,
        (error: ApiClientError) => error,
      );
    expect(bad).toMatchObject({ status: 400 });
    expect((bad?.details?.issues as Array<{ path: string }>)[0]!.path).toBe('chatMessageId');
    const doc = await createDocument(inline(patientId, png(), { category: 'photo', contentType: 'image/png', chatMessageId: media.body.message.id }));
    expect(doc.chatMessageId).toBe(media.body.message.id);
    const messages = await api.call('listConversationMessages', { params: { path: { id: conv.body.id } } });
    expect(messages.data.find((m) => m.id === media.body.message.id)!.documentId).toBe(doc.id);
  });

  it('sweeps bytes no row wants, once older than an hour, and keeps the others', async () => {
    const deps = depsOf(server.ctx);
    const dir = server.ctx.config.documents.dir;
    const kept = await createDocument(inline(patientId, pdf(500)));
    const orphan = join(dir, 'documents', t.clinicId, '11111111-1111-4111-8111-111111111111');
    const fresh = join(dir, 'documents', t.clinicId, '22222222-2222-4222-8222-222222222222');
    mkdirSync(join(dir, 'documents', t.clinicId), { recursive: true });
    writeFileSync(orphan, 'left by a crash');
    writeFileSync(fresh, 'row about to be written');
    const old = new Date(Date.now() - 2 * 3600_000);
    utimesSync(orphan, old, old);
    utimesSync(join(dir, 'documents', t.clinicId, kept.id), old, old);
    await sweepOrphanBytes(deps);
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
    expect(existsSync(join(dir, 'documents', t.clinicId, kept.id))).toBe(true);
  });
});

/**
 * A crash during an upload, with the real service as a process, on both
 * engines and both storage drivers (fs, and S3 against a real s3rver): the process is SIGKILLed
 * with half the body received, started again, and then the same upload link takes the whole
 * body (once the dead process's hold on it lapsed, DOCUMENT_LINK_LEASE_SECONDS) and the document
 * becomes `available`; before that, `complete` finds no upload (the part s3rver kept is not one).
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../../src/modules/auth/scopes.js';
import { freePort, startService, type ServiceProcess } from '../../helpers/process.js';
import { ENGINE, startTestServer, type TestServer } from '../../helpers/server.js';
import { pdf, sha256 } from './helpers.js';

const ADMIN = 'documents-crash-admin-token-0123';
const LEASE_SECONDS = 2;
const dirs: string[] = [];
const running: ServiceProcess[] = [];
let pgServer: TestServer | null = null;
let s3: S3rver;
let s3Dir: string;
let s3Port: number;

const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

beforeAll(async () => {
  // PostgreSQL: this file's own database, shared by the processes started here.
  if (ENGINE === 'postgres') pgServer = await startTestServer();
  s3Dir = temp('dcm-crash-s3-');
  s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3Dir });
  s3Port = (await s3.run()).port;
  const client = new S3Client({
    endpoint: `http://127.0.0.1:${s3Port}`,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  await client.send(new CreateBucketCommand({ Bucket: 'dcm-crash' }));
  client.destroy();
});
afterAll(async () => {
  for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await pgServer?.close();
  await s3?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function start(env: Record<string, string>, port: number): Promise<ServiceProcess> {
  const proc = startService({ ...env, PORT: String(port) });
  running.push(proc);
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`the service exited with ${proc.child.exitCode}:\n${proc.output()}`);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) return proc;
    if (Date.now() > deadline) throw new Error(`the service did not become ready:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function call(base: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

const waitUntil = async (check: () => boolean, what: string) => {
  for (let i = 0; !check(); i++) {
    if (i > 1500) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** Whether a file under `dir` has received bytes: the driver's temporary file (fs), or s3rver's object being written. */
const receiving = (dir: string) => {
  try {
    return readdirSync(dir, { recursive: true }).some((f) => {
      const info = statSync(join(dir, String(f)));
      return info.isFile() && info.size > 0 && !String(f).endsWith('.json');
    });
  } catch {
    return false;
  }
};

describe('a crash during an upload', () => {
  for (const driver of ['fs', 's3'] as const) {
    it(`${driver}: the upload link works again after a restart, and the document becomes available`, async () => {
      const documentDir = temp('dcm-crash-documents-');
      const env: Record<string, string> = {
        ADMIN_TOKEN: ADMIN,
        SEED_DEMO: 'false',
        LOG_LEVEL: 'warn',
        DOCUMENT_LINK_LEASE_SECONDS: String(LEASE_SECONDS),
        ...(pgServer ? { DATABASE_URL: pgServer.ctx.config.databaseUrl! } : { DATA_DIR: temp('dcm-crash-data-') }),
        ...(driver === 'fs'
          ? { DOCUMENT_DIR: documentDir }
          : { S3_ENDPOINT: `http://127.0.0.1:${s3Port}`, S3_BUCKET: 'dcm-crash', S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' }),
      };
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const first = await start(env, port);

      const clinic = await call(base, ADMIN, 'POST', '/admin/v1/clinics', { name: `Crash ${driver}` });
      expect(clinic.status).toBe(201);
      const key = await call(base, ADMIN, 'POST', `/admin/v1/clinics/${clinic.json.id}/api-keys`, { name: 'crash', scopes: [...SCOPES] });
      expect(key.status).toBe(201);
      const token = key.json.token as string;
      const patient = await call(base, token, 'POST', '/v1/patients', { firstName: 'Giulia', lastName: 'Crash' });
      expect(patient.status).toBe(201);
      const bytes = pdf(3_000_000);
      const created = await call(base, token, 'POST', '/v1/documents', {
        patientId: patient.json.id,
        category: 'quote',
        title: 'Preventivo',
        filename: 'preventivo.pdf',
        contentType: 'application/pdf',
        sizeBytes: bytes.length,
        sha256: sha256(bytes),
      });
      expect(created.status).toBe(201);
      const link = new URL(created.json.upload.url as string);

      // Half the body, then the process dies with the upload in flight.
      const req = httpRequest(link, { method: 'PUT', headers: { 'content-type': 'application/pdf', 'content-length': String(bytes.length) } });
      req.on('error', () => undefined);
      req.write(bytes.subarray(0, 1_500_000));
      await waitUntil(() => receiving(driver === 'fs' ? documentDir : join(s3Dir, 'dcm-crash')), 'the storage to receive bytes');
      first.child.kill('SIGKILL');
      await first.exited;
      req.destroy();

      await start(env, port);
      // Nothing was uploaded: what the store kept of the cut body is not an upload (s3rver keeps it).
      const early = await call(base, token, 'POST', `/v1/documents/${created.json.id}/complete`);
      expect(early.status).toBe(409);
      expect(early.json.error.details.reason).toBe('upload_missing');

      // The same link, the whole body: refused only while the dead process's hold lasts.
      let outcome: { status: number; body: any } | null = null;
      const deadline = Date.now() + (LEASE_SECONDS + 10) * 1000;
      while (Date.now() < deadline) {
        const res = await fetch(link, { method: 'PUT', body: bytes as unknown as BodyInit, headers: { 'content-type': 'application/pdf' } });
        outcome = { status: res.status, body: await res.json() };
        if (res.status !== 403) break;
        expect(outcome.body.error.details.reason).toBe('link_used');
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(outcome).toEqual({ status: 200, body: { id: created.json.id, status: 'available', rejectedReason: null } });
      const content = await fetch(`${base}/v1/documents/${created.json.id}/content`, { headers: { authorization: `Bearer ${token}` } });
      expect(content.status).toBe(200);
      expect(sha256(Buffer.from(await content.arrayBuffer()))).toBe(sha256(bytes));
      // Used now, for good.
      const again = await fetch(link, { method: 'PUT', body: bytes as unknown as BodyInit, headers: { 'content-type': 'application/pdf' } });
      expect(again.status).toBe(403);
    }, 240_000);
  }
});

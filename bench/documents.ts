/**
 * Documents benchmark: `npm run bench:documents [-- --sizes=1,25 --parallel=20 --drivers=fs,s3]`.
 *
 * For each storage driver the real service runs in a process of its own (embedded database,
 * fresh data folder; s3: an s3rver started here, in this process), and for each size (MiB):
 * `--parallel` clients together create a document (`POST /v1/documents` without content), PUT
 * its bytes to the upload link (the service's own with both drivers: it streams them into the
 * storage, checking them on the way, and answers the outcome), then download it through
 * `GET /v1/documents/{id}/content` (the service streams it from the storage).
 *
 * Prints, per driver and size, the upload and download throughput (MiB/s of file bytes, wall
 * clock of the whole batch) and the server's resident memory: at rest before the batch, the
 * highest sampled during it (every 20 ms, /proc/<pid>/status VmRSS), and the process's peak
 * (VmHWM). Streaming means the peak grows far less than parallel × size.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { benchArgs, processMemoryMiB } from './lib/harness.js';

const args = benchArgs();
const SIZES = (args.sizes ?? '1,25').split(',').map(Number);
const PARALLEL = Number(args.parallel ?? 20);
const DRIVERS = (args.drivers ?? 'fs,s3').split(',');
const ADMIN = 'bench-admin-token-0123456789';
const MiB = 1_048_576;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function memory(pid: number): { rss: number; hwm: number } {
  return { rss: processMemoryMiB(pid, 'VmRSS') ?? 0, hwm: processMemoryMiB(pid, 'VmHWM') ?? 0 };
}

/** A file of `size` bytes with a PDF header (the real-type check reads it). */
function pdf(size: number): Buffer {
  const bytes = randomBytes(size);
  Buffer.from('%PDF-1.7\n').copy(bytes);
  return bytes;
}

async function startServer(env: Record<string, string>): Promise<{ url: string; child: ChildProcess; stop: () => Promise<void> }> {
  const port = await freePort();
  const env2: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    ADMIN_TOKEN: ADMIN,
    SEED_DEMO: 'false',
    LOG_LEVEL: 'warn',
    SHUTDOWN_GRACE_MS: '1000',
    ...env,
  };
  delete env2.DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: env2, stdio: ['ignore', 'inherit', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (
      await fetch(`${url}/healthz`)
        .then((r) => r.ok)
        .catch(() => false)
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function json(res: Response): Promise<any> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/** A clinic, a patient and a key for one batch (each batch its own clinic: the spec's rate limits are per clinic). */
async function tenant(url: string): Promise<{ token: string; reader: string; patientId: string }> {
  const admin = (path: string, body: unknown) =>
    fetch(`${url}/admin/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(json);
  const clinic = await admin('/clinics', { name: `Bench ${randomBytes(3).toString('hex')}` });
  const key = await admin(`/clinics/${clinic.id}/api-keys`, {
    name: 'bench',
    scopes: ['documents:read', 'documents:write', 'patients:read', 'patients:write'],
  });
  // A second key for the downloads: a key's budget is 60 requests per 10 s (spec 8).
  const reader = await admin(`/clinics/${clinic.id}/api-keys`, { name: 'bench reader', scopes: ['documents:read'] });
  const patient = await fetch(`${url}/v1/patients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ firstName: 'Bench', lastName: 'Paziente' }),
  }).then(json);
  return { token: key.token, reader: reader.token, patientId: patient.id };
}

async function batch(driver: string, url: string, pid: number, sizeMiB: number): Promise<void> {
  const { token, reader, patientId } = await tenant(url);
  const bytes = pdf(Math.round(sizeMiB * MiB));
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const auth = { authorization: `Bearer ${token}` };
  let peak = 0;
  const before = memory(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, memory(pid).rss)), 20);

  const upStart = performance.now();
  const ids = await Promise.all(
    Array.from({ length: PARALLEL }, async (_, i) => {
      const doc = await fetch(`${url}/v1/documents`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          patientId,
          category: 'quote',
          title: `Bench ${i}`,
          filename: 'bench.pdf',
          contentType: 'application/pdf',
          sizeBytes: bytes.length,
          sha256,
        }),
      }).then(json);
      const up = await fetch(doc.upload.url, { method: 'PUT', headers: doc.upload.headers, body: bytes as unknown as BodyInit });
      if (!up.ok) throw new Error(`PUT ${up.status} ${await up.text()}`);
      const done = await up.json();
      if (done.status !== 'available') throw new Error(`document ${doc.id} is ${done.status} ${done.rejectedReason}`);
      return doc.id as string;
    }),
  );
  const upSeconds = (performance.now() - upStart) / 1000;
  const upPeak = peak;

  peak = 0;
  const downStart = performance.now();
  await Promise.all(
    ids.map(async (id) => {
      const res = await fetch(`${url}/v1/documents/${id}/content`, { headers: { authorization: `Bearer ${reader}` } });
      if (!res.ok || !res.body) throw new Error(`content ${res.status}`);
      const hash = createHash('sha256');
      for await (const chunk of res.body) hash.update(chunk);
      if (hash.digest('hex') !== sha256) throw new Error('downloaded bytes differ');
    }),
  );
  const downSeconds = (performance.now() - downStart) / 1000;
  clearInterval(sampler);
  const after = memory(pid);
  const total = (PARALLEL * bytes.length) / MiB;
  console.log(
    [
      `${driver.padEnd(3)} ${String(sizeMiB).padStart(3)} MiB x ${PARALLEL}`,
      `upload ${(total / upSeconds).toFixed(1).padStart(6)} MiB/s (${upSeconds.toFixed(2)} s)`,
      `download ${(total / downSeconds).toFixed(1).padStart(6)} MiB/s (${downSeconds.toFixed(2)} s)`,
      `server RSS at rest ${before.rss.toFixed(0)} MiB, peak upload ${upPeak.toFixed(0)} MiB, peak download ${peak.toFixed(0)} MiB, VmHWM ${after.hwm.toFixed(0)} MiB`,
    ].join(' | '),
  );
}

async function main(): Promise<void> {
  console.log(`bench:documents sizes ${SIZES.join(',')} MiB, ${PARALLEL} in parallel, drivers ${DRIVERS.join(',')}`);
  for (const driver of DRIVERS) {
    const dir = mkdtempSync(join(tmpdir(), 'dcm-bench-documents-'));
    let s3: S3rver | null = null;
    const env: Record<string, string> = { DATA_DIR: join(dir, 'data'), DOCUMENT_DIR: join(dir, 'documents') };
    if (driver === 's3') {
      s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: join(dir, 's3') });
      const { port } = await s3.run();
      const endpoint = `http://127.0.0.1:${port}`;
      Object.assign(env, { S3_ENDPOINT: endpoint, S3_BUCKET: 'dcm-bench', S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' });
      const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
      await client.send(new CreateBucketCommand({ Bucket: 'dcm-bench' }));
      client.destroy();
    }
    const server = await startServer(env);
    try {
      for (const size of SIZES) await batch(driver, server.url, server.child.pid!, size);
    } finally {
      await server.stop();
      await s3?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

await main();

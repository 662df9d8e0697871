/**
 * The clamd scanner against a small local server speaking ClamAV's INSTREAM protocol, which
 * flags the EICAR test file; and a scanner that does not answer (down, or silent) leaves the
 * document `pending_scan`, retried by the job, never `available` unscanned.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../../src/config.js';
import { retryPendingScans } from '../../../src/modules/documents/jobs.js';
import { depsOf } from '../../../src/modules/documents/service.js';
import type { DentalClinicClient } from '../../../packages/client/src/index.js';
import { freePort } from '../../helpers/process.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import type { Tenant } from '../../helpers/factories.js';
import { EICAR, announced, inline, patient, pdf, text } from './helpers.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

type Mode = 'answer' | 'silent';

/** A clamd look-alike: reads `zINSTREAM\0` and length-prefixed chunks, answers OK or FOUND for EICAR. */
function fakeClamd(port: number, mode: () => Mode): Promise<{ server: Server; scans: () => number }> {
  let scans = 0;
  const server = createServer((socket: Socket) => {
    let buffer = Buffer.alloc(0);
    const received: Buffer[] = [];
    let started = false;
    socket.on('data', (data) => {
      buffer = Buffer.concat([buffer, data]);
      if (!started) {
        const end = buffer.indexOf(0);
        if (end < 0) return;
        if (buffer.subarray(0, end).toString() !== 'zINSTREAM') return void socket.end('UNKNOWN COMMAND\0');
        buffer = buffer.subarray(end + 1);
        started = true;
      }
      while (buffer.length >= 4) {
        const size = buffer.readUInt32BE(0);
        if (size === 0) {
          scans++;
          if (mode() === 'silent') return;
          const all = Buffer.concat(received);
          socket.end(all.includes(EICAR) ? 'stream: Eicar-Test-Signature FOUND\0' : 'stream: OK\0');
          return;
        }
        if (buffer.length < 4 + size) return;
        received.push(buffer.subarray(4, 4 + size));
        buffer = buffer.subarray(4 + size);
      }
    });
    socket.on('error', () => undefined);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve({ server, scans: () => scans })));
}

let server: TestServer;
let t: Tenant;
let api: DentalClinicClient;
let patientId: string;
let clamd: Server | null = null;
let mode: Mode = 'answer';
let port: number;

beforeAll(async () => {
  port = await freePort();
  const base = testConfig();
  server = await startTestServer({
    config: {
      documents: { ...base.documents, dir: mkdtempSync(join(tmpdir(), 'dcm-documents-')), scanner: { kind: 'clamd', host: '127.0.0.1', port, timeoutMs: 500 } },
    },
  });
  t = await server.factories.tenant();
  api = server.api(t.token);
  patientId = await patient(server, t.token, t.facilityIds[0]);
});
afterAll(async () => {
  clamd?.close();
  await server?.close();
});

describe('clamd scanner', () => {
  it('marks clean bytes clean and rejects the EICAR file as malware, deleting it', async () => {
    clamd = (await fakeClamd(port, () => mode)).server;
    const clean = await api.call('createDocument', { body: inline(patientId, pdf(300_000)) });
    expect(clean).toMatchObject({ status: 'available', scanResult: 'clean' });
    const infected = await api.call('createDocument', { body: inline(patientId, EICAR, { contentType: 'text/plain', filename: 'eicar.txt' }) });
    expect(infected).toMatchObject({ status: 'rejected', rejectedReason: 'malware', scanResult: 'infected' });
    expect(await server.ctx.documents.store.exists(`documents/${t.clinicId}/${infected.id}`)).toBe(false);

    // The same through an upload link.
    const created = await api.call('createDocument', { body: announced(patientId, EICAR, { contentType: 'text/plain' }) });
    const up = await fetch(created.upload!.url, { method: 'PUT', body: EICAR as unknown as BodyInit, headers: { 'content-type': 'text/plain' } });
    expect(await up.json()).toMatchObject({ status: 'rejected', rejectedReason: 'malware' });
  });

  it('leaves the document pending_scan when clamd is silent or down, and the job scans it later', async () => {
    mode = 'silent';
    const silent = await api.call('createDocument', { body: inline(patientId, text('Referto'), { contentType: 'text/plain' }) });
    expect(silent).toMatchObject({ status: 'pending_scan', scanResult: 'pending' });
    mode = 'answer';
    await new Promise<void>((r) => clamd!.close(() => r()));
    clamd = null;
    const down = await api.call('createDocument', { body: inline(patientId, pdf(2000)) });
    expect(down).toMatchObject({ status: 'pending_scan', scanResult: 'pending' });
    await expect(api.call('getDocumentContent', { params: { path: { id: down.id } } })).rejects.toMatchObject({ status: 409 });

    const deps = depsOf(server.ctx);
    expect(await retryPendingScans(deps)).toBe(0);
    expect((await api.call('getDocument', { params: { path: { id: down.id } } })).status).toBe('pending_scan');

    const back = await fakeClamd(port, () => mode);
    clamd = back.server;
    expect(await retryPendingScans(deps)).toBe(2);
    for (const id of [silent.id, down.id]) {
      expect(await api.call('getDocument', { params: { path: { id } } })).toMatchObject({ status: 'available', scanResult: 'clean' });
    }
    const row = await server.ctx.db.selectFrom('documents').select('scan_attempts').where('id', '=', down.id).executeTakeFirstOrThrow();
    expect(row.scan_attempts).toBe(3);
  });
});

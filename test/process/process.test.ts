/**
 * The service as a process: first start on the embedded database (demo clinic, keys
 * printed), the data-folder lock, graceful shutdown on SIGTERM. These run the embedded
 * database only: they are about the process, and PostgreSQL has no folder to lock.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENGINE } from '../helpers/server.js';
import { freePort, startService, waitFor, type ServiceProcess } from '../helpers/process.js';

const ADMIN = 'process-test-admin-token';
const dirs: string[] = [];
const running: ServiceProcess[] = [];
afterAll(() => {
  for (const p of running) p.child.kill('SIGKILL');
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe.skipIf(ENGINE === 'postgres')('the service process (embedded database)', () => {
  it('starts with a demo clinic, locks its data folder, and finishes requests in flight on SIGTERM', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcm-proc-'));
    dirs.push(dataDir);
    const port = await freePort();
    const first = startService({ DATA_DIR: dataDir, PORT: String(port), ADMIN_TOKEN: ADMIN });
    running.push(first);
    await waitFor(() => first.output().includes('"msg":"started"'), 60_000, 'the first start');
    const out = first.output();
    expect(out).toContain('Demo clinic created');
    const token = /live key \(every scope\): (dcm_live_\S+)/.exec(out)?.[1];
    const curl = /curl -s -H "Authorization: Bearer (dcm_live_\S+)" (http:\/\/\S+)/.exec(out);
    expect(token).toBeTruthy();
    expect(curl?.[1]).toBe(token);
    const demo = await fetch(curl![2]!, { headers: { authorization: `Bearer ${token}` } });
    expect(demo.status).toBe(200);
    expect((await demo.json()).name).toBe('Sede di Milano');
    // The demo's billing: a presented quote, an issued invoice, a payment, a balance.
    const base = new URL(curl![2]!).origin;
    const get = async (p: string) => (await fetch(base + p, { headers: { authorization: `Bearer ${token}` } })).json();
    const quotes = await get('/v1/treatment-plans');
    expect(quotes.data.map((q: { status: string }) => q.status)).toEqual(['presented']);
    const invoices = await get('/v1/invoices');
    expect(invoices.data[0]).toMatchObject({ status: 'issued', totalAmount: 122, amountPaid: 50, amountDue: 72 });
    expect((await get('/v1/payments')).data[0]).toMatchObject({ amount: 50, reference: 'demo_pi_0001' });
    expect(await get(`/v1/patients/${quotes.data[0].patientId}/balance`)).toMatchObject({ amountDue: 72, openInvoiceCount: 1 });

    // A second process on the same folder stops with a clear message and changes nothing.
    const second = startService({ DATA_DIR: dataDir, PORT: String(await freePort()) });
    expect(await second.exited).toBe(3);
    expect(second.output()).toContain('is in use by process');

    // SIGTERM while a request is half sent: the request still completes, then the process exits 0.
    const body = JSON.stringify({ name: 'Studio durante lo spegnimento' });
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    let response = '';
    socket.on('data', (d) => (response += d));
    socket.write(
      `POST /admin/v1/clinics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    socket.write(body.slice(0, 10));
    await new Promise((r) => setTimeout(r, 200));
    first.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    socket.write(body.slice(10));
    await waitFor(() => response.includes('\r\n\r\n') && response.includes('}'), 10_000, 'the response');
    expect(response).toMatch(/^HTTP\/1\.1 201/);
    expect(await first.exited).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'dcm.lock'))).toBe(false);

    // The next start keeps the data and does not create the demo again.
    const third = startService({ DATA_DIR: dataDir, PORT: String(await freePort()), ADMIN_TOKEN: ADMIN });
    running.push(third);
    await waitFor(() => third.output().includes('"msg":"started"'), 60_000, 'the restart');
    expect(third.output()).toContain('Demo clinic already created');
    third.child.kill('SIGTERM');
    expect(await third.exited).toBe(0);
  });

  it('refuses to start on a bad configuration, naming the variable', async () => {
    const p = startService({ PORT: 'not-a-port' });
    expect(await p.exited).toBe(2);
    expect(p.output()).toContain('PORT');
  });
});

/**
 * Crash safety of the embedded database, with the real service as a process:
 *   - the data folder is locked: a second process exits non-zero with a clear message,
 *     changes nothing, and the first keeps serving reads and writes;
 *   - SIGKILL in the middle of a stream of writes, then a restart: every write that was
 *     acknowledged (201) is there, the database opens cleanly, and it accepts new writes.
 *     Done twice in a row on the same folder (a crash after a crash recovery).
 * PostgreSQL has no data folder to lock and its durability is its own: skipped there.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENGINE } from '../helpers/server.js';
import { freePort, startService, type ServiceProcess } from '../helpers/process.js';

const ADMIN = 'crash-test-admin-token-0123';
const dirs: string[] = [];
const running: ServiceProcess[] = [];
afterAll(() => {
  for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function start(dataDir: string): Promise<{ proc: ServiceProcess; base: string }> {
  const port = await freePort();
  const proc = startService({ DATA_DIR: dataDir, PORT: String(port), ADMIN_TOKEN: ADMIN, SEED_DEMO: 'false', LOG_LEVEL: 'warn' });
  running.push(proc);
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`the service exited with ${proc.child.exitCode}:\n${proc.output()}`);
    try {
      const res = await fetch(`${base}/readyz`);
      if (res.status === 200) return { proc, base };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the service did not become ready:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const admin = (base: string, method: string, p: string, body?: unknown) =>
  fetch(`${base}${p}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });

async function clinicNames(base: string): Promise<Set<string>> {
  const res = await admin(base, 'GET', '/admin/v1/clinics');
  expect(res.status).toBe(200);
  return new Set(((await res.json()) as { data: { name: string }[] }).data.map((c) => c.name));
}

/**
 * Creates clinics from `writers` concurrent loops until killed; returns the names that were
 * acknowledged with 201. The process is SIGKILLed once `killAfter` writes are acknowledged,
 * with writes still in flight.
 */
async function writeUntilKilled(proc: ServiceProcess, base: string, round: string, killAfter: number, writers = 4): Promise<string[]> {
  const acked: string[] = [];
  let n = 0;
  let killed = false;
  const loop = async () => {
    while (!killed) {
      const name = `Crash ${round} #${++n}`;
      try {
        const res = await admin(base, 'POST', '/admin/v1/clinics', { name });
        if (res.status === 201) acked.push(name);
        else if (!killed) throw new Error(`unexpected ${res.status}: ${await res.text()}`);
      } catch (error) {
        if (!killed) throw error;
      }
      if (!killed && acked.length >= killAfter) {
        killed = true;
        proc.child.kill('SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: writers }, loop));
  await proc.exited;
  return acked;
}

describe.skipIf(ENGINE === 'postgres')('crash safety of the embedded database (PGlite only: PostgreSQL has no data folder to lock)', () => {
  it('locks the data folder: a second process exits non-zero with a clear message and the first keeps serving', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcm-lock-'));
    dirs.push(dataDir);
    const first = await start(dataDir);
    const created = await admin(first.base, 'POST', '/admin/v1/clinics', { name: 'Before the intruder' });
    expect(created.status).toBe(201);
    const lockBefore = fs.readFileSync(path.join(dataDir, 'dcm.lock'), 'utf8');

    const secondPort = await freePort();
    const second = startService({ DATA_DIR: dataDir, PORT: String(secondPort), ADMIN_TOKEN: ADMIN, SEED_DEMO: 'false' });
    running.push(second);
    const code = await second.exited;
    expect(code).not.toBe(0);
    expect(code).toBe(3);
    expect(second.output()).toContain('is in use by process');
    expect(second.output()).toContain(path.resolve(dataDir));
    // It never listened, and the lock is still the first process's.
    await expect(fetch(`http://127.0.0.1:${secondPort}/healthz`)).rejects.toThrow();
    expect(fs.readFileSync(path.join(dataDir, 'dcm.lock'), 'utf8')).toBe(lockBefore);
    expect(lockBefore).toBe(String(first.proc.child.pid));

    // The first process still reads and writes, and sees everything.
    const after = await admin(first.base, 'POST', '/admin/v1/clinics', { name: 'After the intruder' });
    expect(after.status).toBe(201);
    const names = await clinicNames(first.base);
    expect(names.has('Before the intruder') && names.has('After the intruder')).toBe(true);

    first.proc.child.kill('SIGTERM');
    expect(await first.proc.exited).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'dcm.lock'))).toBe(false);
  });

  it('serves every acknowledged write after a SIGKILL during writes, twice in a row', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcm-crash-'));
    dirs.push(dataDir);
    const allAcked: string[] = [];
    for (const round of ['one', 'two']) {
      const { proc, base } = await start(dataDir);
      const acked = await writeUntilKilled(proc, base, round, 60);
      expect(acked.length).toBeGreaterThanOrEqual(60);
      allAcked.push(...acked);
      // The killed process left its lock behind; the next start takes it over (its pid is gone).
      expect(fs.existsSync(path.join(dataDir, 'dcm.lock'))).toBe(true);
    }

    const { proc, base } = await start(dataDir);
    const names = await clinicNames(base);
    const lost = allAcked.filter((n) => !names.has(n));
    expect(lost, `acknowledged writes lost after SIGKILL: ${lost.join(', ')}`).toEqual([]);
    // The database is consistent and writable after recovery.
    const res = await admin(base, 'POST', '/admin/v1/clinics', { name: 'After recovery' });
    expect(res.status).toBe(201);
    expect((await clinicNames(base)).has('After recovery')).toBe(true);
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    expect(proc.output()).not.toMatch(/PANIC|corrupt/i);
  });
});

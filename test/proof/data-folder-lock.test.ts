/**
 * The embedded data folder's lock (src/db/data-folder-lock.ts) with real processes:
 *   - 30 rounds of 2-4 processes locking one folder at the same instant, half of them over a
 *     stale lock of a dead process: exactly one owner every time, its pid in the lock file;
 *   - a stale lock of a dead process is taken over;
 *   - an empty lock file is not stale: refused with a clear message while it stays empty,
 *     and judged by its pid once its writer finishes;
 *   - the service itself: 3 processes started at once on one folder, 4 times (each over the
 *     lock the previous winner left when killed): one serves, the others exit 3 with the message.
 * The lock is the same on both engines' code path, but only the embedded one uses it: skipped
 * on PostgreSQL.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE } from '../helpers/server.js';
import { ROOT, startService, waitFor } from '../helpers/process.js';

type Answer = { owner: boolean; error?: string };

const dirs: string[] = [];
const contenders: ChildProcess[] = [];

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcm-lock-'));
  dirs.push(dir);
  return dir;
}

function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve) => child.once('message', (m) => resolve(m as T)));
}

/** The pid of a process that ran and is gone. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => child.once('exit', r));
  return child.pid!;
}

async function compete(children: ChildProcess[], dir: string): Promise<Answer[]> {
  const at = Date.now() + 40;
  const answers = children.map((c) => nextMessage<Answer>(c));
  for (const c of children) c.send({ dir, at });
  return Promise.all(answers);
}

async function releaseAll(children: ChildProcess[]): Promise<void> {
  const done = children.map((c) => nextMessage(c));
  for (const c of children) c.send('release');
  await Promise.all(done);
}

const lockFile = (dir: string) => path.join(dir, 'dcm.lock');

describe.skipIf(ENGINE === 'postgres')('the embedded data folder lock', () => {
  beforeAll(async () => {
    for (let i = 0; i < 4; i++) {
      const child = fork(path.join(ROOT, 'test/helpers/lock-contender.ts'), [], {
        cwd: ROOT,
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      contenders.push(child);
    }
    await Promise.all(contenders.map((c) => nextMessage(c)));
  }, 60_000);

  afterAll(() => {
    for (const c of contenders) c.kill('SIGKILL');
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('has exactly one owner when 2-4 processes lock one folder at the same instant (30 rounds, half over a stale lock)', async () => {
    const stalePid = await deadPid();
    const owners: number[] = [];
    for (let round = 0; round < 30; round++) {
      const dir = tempDir();
      if (round % 2 === 1) fs.writeFileSync(lockFile(dir), String(stalePid));
      const racing = contenders.slice(0, 2 + (round % 3));
      const answers = await compete(racing, dir);
      const winners = racing.filter((_, i) => answers[i]!.owner);
      owners.push(winners.length);
      expect(winners, `round ${round}: ${JSON.stringify(answers)}`).toHaveLength(1);
      expect(fs.readFileSync(lockFile(dir), 'utf8')).toBe(String(winners[0]!.pid));
      for (const a of answers.filter((x) => !x.owner)) expect(a.error).toContain(`is in use by process ${winners[0]!.pid}`);
      await releaseAll(racing);
      expect(fs.existsSync(lockFile(dir))).toBe(false);
      // Nothing but the lock was ever left behind: no takeover lock, no draft files.
      expect(fs.readdirSync(dir)).toEqual([]);
    }
    expect(owners.every((n) => n === 1)).toBe(true);
  }, 120_000);

  it('takes over the lock of a process that no longer runs, also when one died while taking over', async () => {
    const dir = tempDir();
    fs.writeFileSync(lockFile(dir), String(await deadPid()));
    const [answer] = await compete([contenders[0]!], dir);
    expect(answer).toEqual({ owner: true });
    expect(fs.readFileSync(lockFile(dir), 'utf8')).toBe(String(contenders[0]!.pid));
    await releaseAll([contenders[0]!]);

    // A process killed while holding the takeover lock left it behind with the stale lock.
    fs.writeFileSync(lockFile(dir), String(await deadPid()));
    fs.writeFileSync(path.join(dir, 'dcm.lock.takeover'), String(await deadPid()));
    const answers = await compete(contenders.slice(0, 3), dir);
    expect(answers.filter((a) => a.owner)).toHaveLength(1);
    await releaseAll(contenders.slice(0, 3));
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('does not take an empty lock file for stale: refused while it stays empty, judged by its pid once written', async () => {
    const dir = tempDir();
    fs.writeFileSync(lockFile(dir), '');
    const [refused] = await compete([contenders[0]!], dir);
    expect(refused!.owner).toBe(false);
    expect(refused!.error).toContain('holds no process id');
    expect(refused!.error).toContain(path.resolve(lockFile(dir)));
    expect(fs.readFileSync(lockFile(dir), 'utf8')).toBe('');

    // A writer finishes within the wait: a live pid refuses with that pid...
    const writeSoon = (pid: number) => setTimeout(() => fs.writeFileSync(lockFile(dir), String(pid)), 300);
    writeSoon(contenders[1]!.pid!);
    const [held] = await compete([contenders[0]!], dir);
    expect(held!.owner).toBe(false);
    expect(held!.error).toContain(`is in use by process ${contenders[1]!.pid}`);

    // ...and a dead one is taken over.
    fs.writeFileSync(lockFile(dir), '');
    writeSoon(await deadPid());
    const [taken] = await compete([contenders[0]!], dir);
    expect(taken).toEqual({ owner: true });
    await releaseAll([contenders[0]!]);
  });

  it('the service started on a folder with an empty lock exits 3 with that message', async () => {
    const dir = tempDir();
    fs.writeFileSync(lockFile(dir), '');
    const service = startService({ DATA_DIR: dir, PORT: '0' });
    expect(await service.exited).toBe(3);
    expect(service.output()).toContain('holds no process id');
    expect(fs.readdirSync(dir)).toEqual(['dcm.lock']);
  });

  it('three services started at once on one folder: one owns it, the others exit 3 naming it (4 rounds, over the lock of the killed winner)', async () => {
    const dir = tempDir();
    for (let round = 0; round < 4; round++) {
      const services = [0, 1, 2].map(() => startService({ DATA_DIR: dir, PORT: '0', SEED_DEMO: 'false', LOG_LEVEL: 'warn' }));
      try {
        // The losers stop at the lock, before the database opens: wait for two exits (or 60 s).
        await waitFor(() => services.filter((s) => s.child.exitCode !== null).length >= 2, 60_000, 'two processes to exit').catch(() => {});
        const outcomes = services.map((s) => s.child.exitCode ?? 'running');
        const running = services.filter((_, i) => outcomes[i] === 'running');
        expect(running, `round ${round}: ${outcomes.join(', ')}`).toHaveLength(1);
        expect(fs.readFileSync(lockFile(dir), 'utf8')).toBe(String(running[0]!.child.pid));
        for (const [i, s] of services.entries()) {
          if (s === running[0]) continue;
          expect(outcomes[i]).toBe(3);
          expect(s.output()).toContain(`is in use by process ${running[0]!.child.pid}`);
        }
      } finally {
        for (const s of services) if (s.child.exitCode === null) s.child.kill('SIGKILL');
        await Promise.all(services.map((s) => s.exited));
      }
    }
  }, 180_000);
});

/**
 * Runs the real service as a child process (crash, lock and shutdown tests): the built
 * JavaScript that `npm start` runs (dist/, built once per test run by global-setup.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** What `npm start` runs. */
const SERVICE_ENTRY = 'dist/src/main.js';

/**
 * The options `npm start` hands Node before the entry (`node --max-semi-space-size=32 …`), read
 * from package.json's start script so the tests and the benchmarks run the service's process as
 * it runs, with one place to change them.
 */
export function serviceNodeFlags(script = 'start'): string[] {
  const scripts = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
  const words = scripts[script]!.split(/\s+/);
  if (words[0] !== 'node' || !words.includes(SERVICE_ENTRY)) throw new Error(`package.json's ${script} script does not run node ${SERVICE_ENTRY}`);
  return words.slice(1, words.indexOf(SERVICE_ENTRY));
}

export interface ServiceProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

export function startService(env: Record<string, string>, args: string[] = []): ServiceProcess {
  const cleanEnv = { ...process.env };
  delete cleanEnv.DATABASE_URL;
  const child = spawn(process.execPath, [...serviceNodeFlags(), SERVICE_ENTRY, ...args], {
    cwd: ROOT,
    env: { ...cleanEnv, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

export async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A loopback port free at this moment, for a service started on it. */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Runs the real service as a child process (crash, lock and shutdown tests): the built
 * JavaScript that `npm start` runs (dist/, built once per test run by global-setup.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** What `npm start` runs. */
export const SERVICE_ENTRY = 'dist/src/main.js';

export interface ServiceProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

export function startService(env: Record<string, string>, args: string[] = []): ServiceProcess {
  const cleanEnv = { ...process.env };
  delete cleanEnv.DATABASE_URL;
  const child = spawn(process.execPath, [SERVICE_ENTRY, ...args], {
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

/** Shared by the benchmarks: the server process, the machine, autocannon runs. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { serviceNodeFlags } from '../../test/helpers/process.js';
import type { Seeded } from './seed.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The command line's `--name=value` options (`--name` alone is `1`), as every benchmark reads them. */
export function benchArgs(argv: string[] = process.argv.slice(2)): Record<string, string> {
  return Object.fromEntries(
    argv.map((a) => {
      const [k, v] = a.replace(/^--/, '').split('=');
      return [k!, v ?? '1'];
    }),
  );
}

/** The p-th percentile of `xs` (the value at rank floor(p/100 * n), sorted ascending); NaN for none. */
export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

export function machine(): string {
  const cpus = os.cpus();
  return [
    `cpu: ${cpus[0]?.model ?? 'unknown'} x ${cpus.length} cores (os.availableParallelism ${os.availableParallelism()})`,
    `memory: ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB total, ${(os.freemem() / 2 ** 30).toFixed(1)} GiB free; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
    `node ${process.version} on ${os.platform()} ${os.release()}`,
  ].join('\n');
}

export interface BenchServer {
  child: ChildProcess;
  base: string;
  engine: string;
  seeded: Seeded;
  rows: number;
  seedSeconds: number;
  stop(): Promise<void>;
}

/** A dedicated PostgreSQL database for one benchmark run, dropped at the end. */
export { dedicatedDatabase } from '../../test/helpers/databases.js';

/** The checkouts whose bench servers were compiled in this run (this one, and `BENCH_AGAINST`'s). */
const compiled = new Set<string>();
/** tsconfig.bench.json's outDir. */
const BENCH_BUILD = 'dist-bench';
/**
 * Compiles the service and the benchmark server scripts to JavaScript (tsconfig.bench.json,
 * into dist-bench/), once per benchmark run. Not into dist/: two incremental builds writing one
 * folder each trust their own record of what they emitted, so a benchmark of other sources
 * (a `git stash` to measure the code before) left its files in dist/, `npm run build` then
 * emitted nothing, and the tests that start dist/src/main.js ran the stashed code. A bench server runs as
 * the product does (`node dist/…`), not under tsx: tsx's loader, its esbuild service and the
 * source maps it keeps cost about 45 MiB of resident memory (measured idle: 175 MiB through tsx
 * against 127 MiB built), which the server's peak RSS would otherwise report as the service's.
 */
function compileBenchServers(root: string): void {
  if (compiled.has(root)) return;
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.bench.json'], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, ['scripts/copy-build-assets.mjs', BENCH_BUILD], { cwd: root, stdio: 'inherit' });
  compiled.add(root);
}

/**
 * The `{"ready": …}` value of a server's output so far, once its line is whole (ends in a
 * newline): a long line (a thousand seeded clinics) reaches the pipe in several chunks, and
 * its first chunk alone is not JSON.
 */
export function readyLine<Ready>(output: string): Ready | undefined {
  const whole = output.split('\n').slice(0, -1);
  const line = whole.find((l) => l.startsWith('{"ready"'));
  return line === undefined ? undefined : (JSON.parse(line) as { ready: Ready }).ready;
}

/**
 * Starts a benchmark server script (`bench/lib/*.ts`, run compiled: compileBenchServers) in its
 * own process, so the load does not share its event loop, and waits for the one JSON line
 * `{"ready": …}` it prints when listening. `root`: the checkout whose code runs (another one to
 * measure old code against new in one run: bench:api's `BENCH_AGAINST`).
 */
export async function startServerProcess<Ready>(
  script: string,
  env: Record<string, string | undefined>,
  nodeArgs: string[] = [],
  root = ROOT,
): Promise<{ child: ChildProcess; ready: Ready; stop(): Promise<void> }> {
  compileBenchServers(root);
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  if (!env.DATABASE_URL) delete childEnv.DATABASE_URL;
  const built = path.join(BENCH_BUILD, script.replace(/\.ts$/, '.js'));
  // Node's options as `npm start` gives them (the young generation's size: fewer scavenges under load).
  const child = spawn(process.execPath, [...serviceNodeFlags(), ...nodeArgs, built], {
    cwd: root,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const ready = readyLine<Ready>(out);
      if (ready !== undefined) resolve(ready);
    });
    child.on('exit', (code) => reject(new Error(`the bench server exited with ${code}:\n${out}\n${err}`)));
  });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  return {
    child,
    ready,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Starts bench/lib/server.ts (one clinic seeded for bench:api and bench:soak). */
export async function startBenchServer(env: Record<string, string | undefined>, nodeArgs: string[] = [], root = ROOT): Promise<BenchServer> {
  const { child, ready, stop } = await startServerProcess<{ port: number; engine: string; seeded: Seeded; rows: number; seedSeconds: number }>(
    'bench/lib/server.ts',
    env,
    nodeArgs,
    root,
  );
  return { child, base: `http://127.0.0.1:${ready.port}`, engine: ready.engine, seeded: ready.seeded, rows: ready.rows, seedSeconds: ready.seedSeconds, stop };
}

export interface Measure {
  name: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
}

export async function run(name: string, options: Record<string, unknown>): Promise<Measure> {
  const result = await autocannon({ connections: 10, pipelining: 1, ...options });
  return {
    name,
    reqPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    total: result.requests.total,
  };
}

/** A memory field of a process's /proc/<pid>/status (`VmRSS`: resident now, `VmHWM`: its peak) in MiB; null where it cannot be read. */
export function processMemoryMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * The reads of the machine's block devices so far (from /proc/diskstats; partitions, loop and RAM
 * disks left out): two readings around a run tell how much of it waited on the disk rather than
 * on memory. Null where /proc/diskstats cannot be read.
 */
export function diskReads(): { reads: number; mib: number } | null {
  try {
    let reads = 0;
    let sectors = 0;
    for (const line of fs.readFileSync('/proc/diskstats', 'utf8').split('\n')) {
      const f = line.trim().split(/\s+/);
      const name = f[2] ?? '';
      if (!name || /^(loop|ram|zram)/.test(name) || fs.existsSync(`/sys/class/block/${name}/partition`)) continue;
      reads += Number(f[3]);
      sectors += Number(f[5]);
    }
    return { reads, mib: (sectors * 512) / 2 ** 20 };
  } catch {
    return null;
  }
}

/**
 * The server's peak resident memory (MiB) since the last `resetPeakRss`: Linux's VmHWM, reset by
 * writing 5 to /proc/<pid>/clear_refs. Where that is not possible, the peak of samples taken
 * every 50 ms by `sampleRss` stands in.
 */
export class PeakRss {
  #sampled = 0;
  #timer: NodeJS.Timeout | null = null;
  #canReset = false;
  constructor(private readonly pid: number) {}

  reset(): void {
    try {
      fs.writeFileSync(`/proc/${this.pid}/clear_refs`, '5');
      this.#canReset = true;
    } catch {
      this.#canReset = false;
    }
    this.#sampled = processMemoryMiB(this.pid, 'VmRSS') ?? 0;
    if (!this.#timer) {
      this.#timer = setInterval(() => (this.#sampled = Math.max(this.#sampled, processMemoryMiB(this.pid, 'VmRSS') ?? 0)), 50);
      this.#timer.unref();
    }
  }

  /** MiB; NaN where /proc is not readable. */
  peak(): number {
    const hwm = this.#canReset ? processMemoryMiB(this.pid, 'VmHWM') : null;
    const peak = Math.max(hwm ?? 0, this.#sampled, processMemoryMiB(this.pid, 'VmRSS') ?? 0);
    return peak > 0 ? peak : NaN;
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }
}

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

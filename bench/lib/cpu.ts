/**
 * Who spent the machine's CPU during a measurement: the server process, every
 * PostgreSQL process (backends, WAL writer, checkpointer: every process named `postgres`), this
 * benchmark process (the load generator) and everything else, read from Linux's /proc before
 * and after. Divided by the requests served, it says what one request costs each side, and
 * how busy the cores were: a run with the cores all busy cannot serve more without costing
 * less CPU per request, whoever spends it. Clock ticks are 10 ms, so runs of seconds and
 * thousands of requests read it to a few percent.
 */
import fs from 'node:fs';
import os from 'node:os';

const TICK_MS = 10; // USER_HZ is 100 on Linux for every architecture user space sees.

interface CpuSample {
  /** Milliseconds of CPU, user and system. */
  server: number;
  postgres: number;
  self: number;
  /** Milliseconds of all cores: busy (anything but idle and I/O wait) and in all. */
  busy: number;
  total: number;
}

/** Per request, in milliseconds of CPU; `busyPct` is the share of all cores busy over the run. */
export interface CpuPerRequest {
  serverMs: number;
  postgresMs: number;
  loadMs: number;
  otherMs: number;
  busyPct: number;
}

/**
 * CPU of one process in ms, from the fields after its `(comm)` (which may hold spaces): its own
 * (utime + stime) and that of its children it has reaped (cutime + cstime). PostgreSQL's
 * backends come and go with their connections (pgbench opens its own): the postmaster's reaped
 * children hold the CPU of those that exited during a run.
 */
function processCpu(statText: string): { comm: string; ms: number; reapedMs: number } {
  const close = statText.lastIndexOf(')');
  const comm = statText.slice(statText.indexOf('(') + 1, close);
  const fields = statText.slice(close + 2).split(' ');
  return { comm, ms: (Number(fields[11]) + Number(fields[12])) * TICK_MS, reapedMs: (Number(fields[13]) + Number(fields[14])) * TICK_MS };
}

function readStat(pid: number | string): string | null {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null; // exited between the listing and the read
  }
}

/** The CPU spent so far; null where /proc cannot be read (not Linux). */
export function sampleCpu(serverPid: number | null): CpuSample | null {
  const machine = (() => {
    try {
      return fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    } catch {
      return null;
    }
  })();
  if (!machine) return null;
  // user nice system idle iowait irq softirq steal (guest time is already in user)
  const [user, nice, system, idle, iowait, irq, softirq, steal] = machine as [number, number, number, number, number, number, number, number];
  const busy = (user + nice + system + irq + softirq + (steal ?? 0)) * TICK_MS;
  let postgres = 0;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const text = readStat(pid);
    if (!text) continue;
    const { comm, ms, reapedMs } = processCpu(text);
    if (comm === 'postgres') postgres += ms + reapedMs;
  }
  const serverText = serverPid === null ? null : readStat(serverPid);
  const usage = process.cpuUsage();
  return {
    server: serverText ? processCpu(serverText).ms : 0,
    postgres,
    self: (usage.user + usage.system) / 1000,
    busy,
    total: busy + (idle + iowait) * TICK_MS,
  };
}

/** The CPU of one request between two samples, or null when either is missing or nothing was served. */
export function cpuPerRequest(before: CpuSample | null, after: CpuSample | null, requests: number): CpuPerRequest | null {
  if (!before || !after || requests <= 0) return null;
  const d = (k: keyof CpuSample) => after[k] - before[k];
  const other = Math.max(0, d('busy') - d('server') - d('postgres') - d('self'));
  return {
    serverMs: d('server') / requests,
    postgresMs: d('postgres') / requests,
    loadMs: d('self') / requests,
    otherMs: other / requests,
    busyPct: d('total') > 0 ? (100 * d('busy')) / d('total') : NaN,
  };
}

/** The machine's cores, for the limit a CPU cost per request implies. */
export const CORES = os.availableParallelism();

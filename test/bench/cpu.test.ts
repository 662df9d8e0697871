/**
 * bench/lib/cpu.ts, which bench:api and bench:pgbench use to say who spent the CPU of a request:
 * a process that burns a known amount of CPU is read as having spent it, even under a name
 * holding the `) ` that ends the name field of /proc/<pid>/stat.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cpuPerRequest, sampleCpu } from '../../bench/lib/cpu.js';

describe.skipIf(!fs.existsSync('/proc/stat'))('bench CPU accounting', () => {
  it('charges a busy process its CPU, per request, and the machine its busy share', async () => {
    // The child names itself with a parenthesis and spaces, spins for 300 ms, then prints the
    // CPU it has spent by its own account and idles.
    const child = spawn(process.execPath, [
      '-e',
      "process.title = 'x) (y z'; const end = Date.now() + 300; while (Date.now() < end); const u = process.cpuUsage(); console.log((u.user + u.system) / 1000); setTimeout(() => {}, 10000);",
    ]);
    const before = sampleCpu(child.pid!);
    try {
      expect(before).not.toBeNull();
      const ownMs = await new Promise<number>((resolve) => child.stdout.once('data', (d) => resolve(Number(String(d)))));
      const after = sampleCpu(child.pid!);
      const perRequest = cpuPerRequest(before, after, 4)!;
      // What the child says it spent, over 4 requests, read at a 10 ms clock tick.
      expect(ownMs).toBeGreaterThan(100);
      expect(Math.abs(perRequest.serverMs * 4 - ownMs)).toBeLessThanOrEqual(40);
      expect(perRequest.busyPct).toBeGreaterThan(0);
      expect(perRequest.busyPct).toBeLessThanOrEqual(100);
      expect(perRequest.postgresMs).toBeGreaterThanOrEqual(0);
      expect(cpuPerRequest(before, after, 0)).toBeNull();
    } finally {
      child.kill();
    }
  });
});

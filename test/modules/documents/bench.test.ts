/** `npm run bench:documents` (README, "Commands") runs end to end: tiny files, both drivers. */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/process.js';

describe('bench:documents', () => {
  it('uploads and downloads on fs and s3 and prints throughput and server memory', async () => {
    const env = { ...process.env };
    delete env.DATABASE_URL;
    // Spawned, not spawnSync: the test worker must keep answering vitest while the benchmark runs.
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/documents.ts', '--sizes=0.05', '--parallel=2'], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, stderr).toBe(0);
    for (const driver of ['fs', 's3']) expect(stdout).toMatch(new RegExp(`^${driver}\\s+0.05 MiB x 2 \\| upload .* MiB/s .* peak download \\d+ MiB`, 'm'));
  }, 240_000);
});

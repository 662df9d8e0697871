/** `npm run bench:documents` (README, "Commands") runs end to end: tiny files, both drivers. */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.js';

describe('bench:documents', () => {
  it('uploads and downloads on fs and s3 and prints throughput and server memory', () => {
    const env = { ...process.env };
    delete env.DATABASE_URL;
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/documents.ts', '--sizes=0.05', '--parallel=2'], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      timeout: 170_000,
    });
    expect(run.status, run.stderr).toBe(0);
    for (const driver of ['fs', 's3']) expect(run.stdout).toMatch(new RegExp(`^${driver}\\s+0.05 MiB x 2 \\| upload .* MiB/s .* peak download \\d+ MiB`, 'm'));
  }, 180_000);
});

/**
 * The back-office CLI as a user runs it: `dental-clinic …` as a process on an embedded
 * data folder. Embedded database only: the commands are the same on PostgreSQL.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.js';
import { ENGINE } from '../helpers/server.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcm-cli-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/**
 * Runs the CLI and resolves with its exit code and output. Asynchronous on purpose: a
 * synchronous spawn blocks the test worker for the whole command, which on a loaded machine
 * made vitest's own messages to the worker time out.
 */
function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  delete env.DATABASE_URL;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/dental-clinic.mjs'), ...args], { cwd: ROOT, env, timeout: 120_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.skipIf(ENGINE === 'postgres')('dental-clinic CLI', () => {
  it('--help lists every command and every back-office operation', async () => {
    const res = await cli('--help');
    expect(res.code).toBe(0);
    for (const c of ['clinics create', 'keys create', 'keys revoke', 'patients import', 'demo data', 'access-log']) expect(res.stdout).toContain(c);
    for (const op of ['import-patients', 'create-appointment', 'create-task', 'record-payment', 'convert-lead', 'erase-patient'])
      expect(res.stdout).toContain(op);
  });

  it('prints a table for people and JSON for scripts; errors are one line and a non-zero exit', async () => {
    const created = await cli('clinics', 'create', '--name', 'Studio CLI', '--json');
    expect(created.code).toBe(0);
    const clinic = JSON.parse(created.stdout);
    expect(clinic).toMatchObject({ name: 'Studio CLI', mode: 'live' });
    const table = await cli('clinics', 'list');
    expect(table.stdout.split('\n')[0]).toMatch(/^id\s+name\s+mode/);
    expect(table.stdout).toContain('Studio CLI');

    const bad = await cli('call', 'create-facility', '--clinic-id', clinic.id, '--body', '{"name":""}');
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/^error: invalid_request \(name: /);
    const missing = await cli('keys', 'create', '--clinic', clinic.id);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--name is required');
    const unknown = await cli('nonsense');
    expect(unknown.code).toBe(2);

    const key = await cli('keys', 'create', '--clinic', clinic.id, '--name', 'bot', '--scopes', 'patients:read,clinic:read', '--json');
    expect(key.code).toBe(0);
    expect(JSON.parse(key.stdout).token).toMatch(/^dcm_live_/);
  });

  it('imports patients from a file with progress, and fills a demo clinic', async () => {
    const clinic = JSON.parse((await cli('clinics', 'create', '--name', 'Studio Import', '--json')).stdout);
    const file = path.join(dataDir, 'patients.json');
    const patients = Array.from({ length: 620 }, (_, i) => ({ firstName: `Nome${i}`, lastName: 'Import', phone: `+39 347 ${String(1000000 + i)}` }));
    fs.writeFileSync(file, JSON.stringify(patients));
    const res = await cli('patients', 'import', '--clinic', clinic.id, '--file', file);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('importing patients: 620/620');
    expect(res.stdout).toMatch(/imported\s*\n-+\s*\n620/);
    const again = await cli('patients', 'import', '--clinic', clinic.id, '--file', file);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('duplicate_patient');

    const demo = await cli('demo', 'data', '--patients', '60', '--json');
    expect(demo.code, demo.stderr).toBe(0);
    expect(JSON.parse(demo.stdout).patients).toBe(60);
  });
});

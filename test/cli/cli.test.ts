/**
 * The back-office CLI as a user runs it: `dental-clinic …` as a process on an embedded
 * data folder. Embedded database only: the commands are the same on PostgreSQL.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.js';
import { ENGINE } from '../helpers/server.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcm-cli-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

function cli(...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  delete env.DATABASE_URL;
  const res = spawnSync(process.execPath, [path.join(ROOT, 'bin/dental-clinic.mjs'), ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

describe.skipIf(ENGINE === 'postgres')('dental-clinic CLI', () => {
  it('--help lists every command and every back-office operation', () => {
    const res = cli('--help');
    expect(res.code).toBe(0);
    for (const c of ['clinics create', 'keys create', 'keys revoke', 'patients import', 'demo data', 'access-log']) expect(res.stdout).toContain(c);
    for (const op of ['import-patients', 'create-appointment', 'create-task', 'record-payment', 'convert-lead', 'erase-patient']) expect(res.stdout).toContain(op);
  });

  it('prints a table for people and JSON for scripts; errors are one line and a non-zero exit', () => {
    const created = cli('clinics', 'create', '--name', 'Studio CLI', '--json');
    expect(created.code).toBe(0);
    const clinic = JSON.parse(created.stdout);
    expect(clinic).toMatchObject({ name: 'Studio CLI', mode: 'live' });
    const table = cli('clinics', 'list');
    expect(table.stdout.split('\n')[0]).toMatch(/^id\s+name\s+mode/);
    expect(table.stdout).toContain('Studio CLI');

    const bad = cli('call', 'create-facility', '--clinic-id', clinic.id, '--body', '{"name":""}');
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/^error: invalid_request \(name: /);
    const missing = cli('keys', 'create', '--clinic', clinic.id);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--name is required');
    const unknown = cli('nonsense');
    expect(unknown.code).toBe(2);

    const key = cli('keys', 'create', '--clinic', clinic.id, '--name', 'bot', '--scopes', 'patients:read,clinic:read', '--json');
    expect(key.code).toBe(0);
    expect(JSON.parse(key.stdout).token).toMatch(/^dcm_live_/);
  });

  it('imports patients from a file with progress, and fills a demo clinic', () => {
    const clinic = JSON.parse(cli('clinics', 'create', '--name', 'Studio Import', '--json').stdout);
    const file = path.join(dataDir, 'patients.json');
    const patients = Array.from({ length: 620 }, (_, i) => ({ firstName: `Nome${i}`, lastName: 'Import', phone: `+39 347 ${String(1000000 + i)}` }));
    fs.writeFileSync(file, JSON.stringify(patients));
    const res = cli('patients', 'import', '--clinic', clinic.id, '--file', file);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('importing patients: 620/620');
    expect(res.stdout).toMatch(/imported\s*\n-+\s*\n620/);
    const again = cli('patients', 'import', '--clinic', clinic.id, '--file', file);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('duplicate_patient');

    const demo = cli('demo', 'data', '--patients', '60', '--json');
    expect(demo.code, demo.stderr).toBe(0);
    expect(JSON.parse(demo.stdout).patients).toBe(60);
  });
});

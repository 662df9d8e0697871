/**
 * The back-office CLI as a user runs it: `dental-clinic …` as a process on an embedded
 * data folder. Embedded database only: the commands are the same on PostgreSQL.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, ROOT, startService, waitFor } from '../helpers/process.js';
import { ENGINE } from '../helpers/server.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcm-cli-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/**
 * Runs the CLI and resolves with its exit code and output. Asynchronous on purpose: a
 * synchronous spawn blocks the test worker for the whole command, which on a loaded machine
 * made vitest's own messages to the worker time out.
 */
function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return cliIn(dataDir, ...args);
}

function cliIn(folder: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: folder, LOG_LEVEL: 'silent' };
  delete env.ADMIN_TOKEN;
  delete env.DCM_URL;
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

  it('each command help lists its fields with an example; operations list their body fields', async () => {
    const keys = await cli('keys', 'create', '--help');
    expect(keys.code).toBe(0);
    for (const field of ['--clinic <value>', '--name <value>', '--scopes <value>', '--facilities <value>', '--expires-at <value>', '--json'])
      expect(keys.stdout).toContain(field);
    expect(keys.stdout).toMatch(/Example:\n {2}dental-clinic keys create --clinic \S+ --name 'Voice agent' --scopes \S+/);
    const task = await cli('call', 'create-task', '--help');
    expect(task.stdout).toMatch(/title\s+string \(required\)/);
    expect(task.stdout).toMatch(/Example:\n {2}dental-clinic call create-task --clinic <clinicId> --body '\{"title":/);
  });

  it('prints a table for people and JSON for scripts; errors are one line and a non-zero exit', async () => {
    const created = await cli('clinics', 'create', '--name', 'Studio CLI', '--json');
    expect(created.code).toBe(0);
    const clinic = JSON.parse(created.stdout);
    expect(clinic).toMatchObject({ name: 'Studio CLI', mode: 'live' });
    await cli('clinics', 'create', '--name', 'Studio Dentistico Associato Dottori Bianchi, Ferri e Conti di Bergamo Alta');
    const table = await cli('clinics', 'list');
    expect(table.stdout.split('\n')[0]).toMatch(/^id\s+name\s+mode/);
    expect(table.stdout).toContain('Studio CLI');
    // Tables fit 100 columns; ids are never the ones cut.
    for (const line of table.stdout.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(100);
    expect(table.stdout).toContain(clinic.id);
    expect(table.stdout).toMatch(/Studio D[a-z ]*…/);

    const bad = await cli('call', 'create-facility', '--clinic', clinic.id, '--body', '{"name":""}');
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/^error: invalid_request \(name: /);
    const missing = await cli('keys', 'create', '--clinic', clinic.id);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: required option '--name <value>' not specified/);
    // --json: the error too, as the API's envelope on one line of stderr.
    const badJson = await cli('call', 'create-facility', '--clinic', clinic.id, '--body', '{"name":""}', '--json');
    expect(badJson.code).toBe(1);
    expect(JSON.parse(badJson.stderr).error).toMatchObject({ code: 'invalid_request', details: { in: 'body' } });
    const usageJson = await cli('keys', 'list', '--json');
    expect(usageJson.code).toBe(2);
    expect(JSON.parse(usageJson.stderr).error.code).toBe('usage');
    const unknown = await cli('nonsense');
    expect(unknown.code).toBe(2);

    const key = await cli('keys', 'create', '--clinic', clinic.id, '--name', 'bot', '--scopes', 'patients:read,clinic:read', '--json');
    expect(key.code).toBe(0);
    expect(JSON.parse(key.stdout).token).toMatch(/^dcm_live_/);

    // A doctor's display name (what a voice agent says) is set at creation and changed later.
    const doctor = await cli('doctors', 'create', '--clinic', clinic.id, '--first-name', 'Giulia', '--last-name', 'Ferri', '--json');
    expect(doctor.code, doctor.stderr).toBe(0);
    const renamed = await cli(
      'doctors',
      'update',
      '--clinic',
      clinic.id,
      '--id',
      JSON.parse(doctor.stdout).id,
      '--display-name',
      'Dott.ssa Giulia Ferri',
      '--json',
    );
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(JSON.parse(renamed.stdout)).toMatchObject({ firstName: 'Giulia', displayName: 'Dott.ssa Giulia Ferri' });
  });

  it('sets and reads a clinic’s confirmation rules (the no-show loop) through the back office’s operations', async () => {
    const clinic = JSON.parse((await cli('clinics', 'create', '--name', 'Studio Conferme', '--json')).stdout);
    const rulesBody = {
      steps: [{ hoursBefore: 48 }, { daysBefore: 1, at: '18:00' }],
      calendarIds: [],
      categories: [],
      channels: ['phone', 'sms'],
      maxAttempts: 3,
      retryAfterMinutes: 120,
      quietStart: '20:00',
      quietEnd: '09:00',
    };
    const set = await cli('call', 'set-confirmation-rules', '--clinic', clinic.id, '--body', JSON.stringify(rulesBody), '--json');
    expect(set.code, set.stderr).toBe(0);
    const read = await cli('call', 'get-confirmation-rules', '--clinic', clinic.id, '--json');
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout)).toMatchObject({ steps: rulesBody.steps, maxAttempts: 3, quietStart: '20:00' });
    const bad = await cli(
      'call',
      'set-confirmation-rules',
      '--clinic',
      clinic.id,
      '--body',
      JSON.stringify({ ...rulesBody, steps: [{ daysBefore: 1, at: '25:00' }] }),
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: invalid_request \(.*steps/);
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

  it('works while `npm start` runs on the data folder: it calls the service instead of opening the locked database', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'dcm-cli-live-'));
    const service = startService({ DATA_DIR: folder, PORT: String(await freePort()) });
    try {
      await waitFor(() => service.output().includes('"msg":"started"'), 120_000, 'the service');
      const server = JSON.parse(fs.readFileSync(path.join(folder, 'dcm.server.json'), 'utf8'));
      expect(server.pid).toBe(service.child.pid);
      expect(fs.statSync(path.join(folder, 'dcm.server.json')).mode & 0o077).toBe(0); // the token is the owner's only

      const clinics = await cliIn(folder, 'clinics', 'list', '--json');
      expect(clinics.code, clinics.stderr).toBe(0);
      const demo = (JSON.parse(clinics.stdout) as Array<{ id: string; name: string; mode: string }>).find((c) => c.mode === 'live')!;
      expect(demo.name).toBe('Studio Dentistico Sorriso');
      const key = await cliIn(folder, 'keys', 'create', '--clinic', demo.id, '--name', 'Agente vocale', '--scopes', 'all', '--json');
      expect(key.code, key.stderr).toBe(0);
      // The key works on the running service at once: the CLI wrote through it.
      const facilities = await cliIn(folder, 'facilities', 'list', '--clinic', demo.id, '--json');
      const facilityId = JSON.parse(facilities.stdout)[0].id;
      const base = server.adminUrl;
      const read = await fetch(`${base}/v1/facilities/${facilityId}`, { headers: { authorization: `Bearer ${JSON.parse(key.stdout).token}` } });
      expect(read.status).toBe(200);
      const migrate = await cliIn(folder, 'migrate');
      expect(migrate.stdout).toContain('applied by the service at http://127.0.0.1');
      const bad = await cliIn(folder, 'call', 'update-clinic', '--clinic', demo.id, '--body', '{"patientLimit":-1}', '--json');
      expect(bad.code).toBe(1);
      expect(JSON.parse(bad.stderr).error.code).toBe('invalid_request');
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    // Stopped: the file is gone and the CLI opens the database itself again.
    expect(fs.existsSync(path.join(folder, 'dcm.server.json'))).toBe(false);
    const offline = await cliIn(folder, 'clinics', 'list', '--json');
    expect(offline.code, offline.stderr).toBe(0);
    expect(JSON.parse(offline.stdout).length).toBe(2);
    fs.rmSync(folder, { recursive: true, force: true });
  });
});

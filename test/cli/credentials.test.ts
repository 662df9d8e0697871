/**
 * Secrets at the CLI's edges, as a user runs it: ADMIN_TOKEN is never sent
 * over plain http:// beyond this machine, and no error the CLI prints quotes a credential. No
 * database is touched (the CLI stops before connecting, or meets a closed port on loopback).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, ROOT } from '../helpers/process.js';

const TOKEN = 'admin-token-never-printed-0123456789';
const PASSWORD = 'hunter2-never-printed';

/** Runs `dental-clinic clinics list` against DCM_URL; killed after 60 s (a refused URL must not be dialled at all). */
function cli(dcmUrl: string, ...extra: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DCM_URL: dcmUrl, ADMIN_TOKEN: TOKEN, LOG_LEVEL: 'silent' };
  delete env.DATABASE_URL;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/dental-clinic.mjs'), 'clinics', 'list', ...extra], { cwd: ROOT, env, timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const expectNoSecret = (res: { stdout: string; stderr: string }) => {
  for (const secret of [TOKEN, PASSWORD]) expect(res.stdout + res.stderr).not.toContain(secret);
};

describe('the CLI keeps its secrets', () => {
  it('refuses plain http:// to another host before sending ADMIN_TOKEN, with a clear error', async () => {
    // 192.0.2.1 is TEST-NET-1: nothing answers there, so a CLI that dials it hangs until killed.
    for (const url of ['http://192.0.2.1:8080', 'http://dcm.example.com/']) {
      const res = await cli(url);
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toMatch(/^error: refusing to send ADMIN_TOKEN over plain http:\/\/ to [^\s]+: use https:\/\/, or http:\/\/ only to this machine/);
      expectNoSecret(res);
    }
  });

  it('never echoes a password or a token of DCM_URL, nor ADMIN_TOKEN, in text or in --json', async () => {
    const withPassword = await cli(`https://admin:${PASSWORD}@192.0.2.1:8443/`);
    expect(withPassword.code).toBe(2);
    expect(withPassword.stderr).toContain('DCM_URL must not hold a user name or password');
    expect(withPassword.stderr).toContain('https://***@192.0.2.1:8443/');
    expectNoSecret(withPassword);

    const plainWithPassword = await cli(`http://admin:${PASSWORD}@127.0.0.1:9/`, '--json');
    expect(plainWithPassword.code).toBe(2);
    expect(JSON.parse(plainWithPassword.stderr).error.code).toBe('usage');
    expectNoSecret(plainWithPassword);

    const withQuery = await cli(`https://192.0.2.1/?token=${PASSWORD}`);
    expect(withQuery.code).toBe(2);
    expect(withQuery.stderr).toContain('?token=***');
    expectNoSecret(withQuery);

    const otherScheme = await cli(`admin:${PASSWORD}@nowhere`);
    expect(otherScheme.stderr).toContain('DCM_URL must be an https:// URL, got one of "admin:"');
    expect(otherScheme.code).toBe(2);
    expectNoSecret(otherScheme);
    const notUrl = await cli(`//admin:${PASSWORD}@nowhere`);
    expect(notUrl.code).toBe(2);
    expect(notUrl.stderr).toContain('DCM_URL is not a URL');
    expectNoSecret(notUrl);
  });

  it('still sends the token over plain http:// to loopback (127.0.0.0/8, ::1): an unreachable one is "cannot reach", not refused', async () => {
    const port = await freePort();
    for (const url of [`http://127.0.0.1:${port}`, `http://127.8.9.10:${port}/`, `http://[::1]:${port}`]) {
      const res = await cli(url);
      expect(res.code, res.stderr).toBe(1);
      expect(res.stderr).toMatch(/^error: cannot reach the service at http:\/\//);
      expectNoSecret(res);
    }
  });
});

/**
 * The client package as an integrator gets it: `npm pack` (which builds dist/), the tarball
 * installed in an empty project, imported by plain Node (ESM, no loader), its types checked by
 * tsc, the README's first example run as printed against a real server, and the receiver
 * snippet of docs/webhooks.md run as printed: it answers with the same reasons the client and
 * the service give (one verifyWebhook).
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhook, WEBHOOK_VERIFICATION_REASONS, verifyWebhook, WebhookVerificationError } from '../../src/modules/webhooks/verify.js';
import { freePort, ROOT, waitFor } from '../helpers/process.js';
import { ENGINE, startTestServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcm-client-pack-'));
const project = path.join(dir, 'consumer');
let server: TestServer;

/** The first fenced block of `lang` in a Markdown file (after `after`, when given). */
function snippet(file: string, lang: string, after = ''): string {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const from = after ? text.indexOf(after) : 0;
  const match = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(text.slice(from));
  if (!match) throw new Error(`no ${lang} block in ${file}`);
  return match[1]!;
}

function node(file: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { cwd: project, env: { ...process.env, ...env } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

// The package does not depend on the database: one engine is enough.
describe.skipIf(ENGINE === 'postgres')('the client package, packed and installed', () => {
  beforeAll(async () => {
    const packed = await run('npm', ['pack', '--pack-destination', dir, '--json'], { cwd: path.join(ROOT, 'packages/client') });
    const tarball = path.join(dir, JSON.parse(packed.stdout)[0].filename);
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: project });
    server = await startTestServer();
  }, 300_000);
  afterAll(async () => {
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('ships JavaScript and declarations behind an exports map, and imports in plain Node', async () => {
    const installed = path.join(project, 'node_modules/@dental-clinic/client');
    const manifest = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8'));
    expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' });
    expect(fs.readdirSync(path.join(installed, 'dist'))).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'schema.d.ts', 'openapi.json']));
    expect(fs.existsSync(path.join(installed, 'src'))).toBe(false);
    fs.writeFileSync(path.join(project, 'imports.mjs'), "import * as m from '@dental-clinic/client';\nconsole.log(JSON.stringify(Object.keys(m).sort()));\n");
    const res = await node('imports.mjs', {});
    expect(res.code, res.out).toBe(0);
    expect(JSON.parse(res.out)).toEqual(expect.arrayContaining(['createClient', 'verifyWebhook', 'signWebhook', 'ApiClientError', 'operations']));
  });

  it('type-checks a consumer against the installed declarations', async () => {
    fs.writeFileSync(
      path.join(project, 'check.ts'),
      [
        "import { createClient, type components } from '@dental-clinic/client';",
        "const api = createClient({ baseUrl: 'http://127.0.0.1:3000/v1', apiKey: 'dcm_test_x' });",
        "export async function f(): Promise<string> { const facility = await api.call('getFacility', { params: { path: { id: 'x' } } }); return facility.name; }",
        "export type Facility = components['schemas'] extends object ? true : false;",
        '// @ts-expect-error: an unknown path parameter is a type error',
        "export const g = () => api.call('getFacility', { params: { path: { nope: 'x' } } });",
      ].join('\n'),
    );
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const args = [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--typeRoots',
      path.join(ROOT, 'node_modules/@types'),
      '--types',
      'node',
      'check.ts',
    ];
    const res = await run(process.execPath, [tsc, ...args], { cwd: project }).catch((e: { stdout: string }) => ({ stdout: e.stdout, failed: true }));
    expect(res, res.stdout).not.toHaveProperty('failed');
  });

  it("runs the README's first example as printed", async () => {
    const tenant = await server.factories.tenant();
    fs.writeFileSync(path.join(project, 'example.mjs'), snippet('packages/client/README.md', 'js'));
    const res = await node('example.mjs', { DCM_URL: `${server.url}/v1`, DCM_API_KEY: tenant.token });
    expect(res.code, res.out).toBe(0);
    expect(res.out).toMatch(/^0 patients named Rossi\n0 appointments\n404 not_found \(request \S+\)\n$/);
  });

  it("runs the docs' receiver snippet as printed: it accepts a signed delivery and refuses with the package's and the service's reasons", async () => {
    fs.writeFileSync(path.join(project, 'receiver.mjs'), snippet('docs/webhooks.md', 'js', '## Receiving webhooks'));
    const port = await freePort();
    const secret = 'whsec_docs0123456789abcdefghijklmnopqrstuv';
    const child = spawn(process.execPath, ['receiver.mjs'], { cwd: project, env: { ...process.env, PORT: String(port), WHSEC_CURRENT: secret } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    try {
      const body = JSON.stringify({
        id: 'k1',
        eventId: 'e1',
        type: 'patient.created',
        createdAt: new Date().toISOString(),
        apiVersion: 'v1',
        livemode: false,
        facilityId: null,
        data: { id: 'p1' },
      });
      const send = async (headers: Record<string, string>) => {
        for (let i = 0; ; i++) {
          try {
            const res = await fetch(`http://127.0.0.1:${port}/hooks`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
            return { status: res.status, text: await res.text() };
          } catch (error) {
            if (i > 100) throw error;
            await new Promise((r) => setTimeout(r, 50));
          }
        }
      };
      const ts = Math.floor(Date.now() / 1000);
      const good = { 'x-service-timestamp': String(ts), 'x-service-idempotency-key': 'k1', 'x-service-signature': `v1=${signWebhook(secret, ts, 'k1', body)}` };
      expect(await send(good)).toEqual({ status: 200, text: '' });
      await waitFor(() => out.includes('patient.created'), 10_000, 'the receiver to log the event');

      const cases: Array<Record<string, string>> = [
        { ...good, 'x-service-signature': `v1=${signWebhook('whsec_other', ts, 'k1', body)}` },
        { ...good, 'x-service-timestamp': String(ts - 301), 'x-service-signature': `v1=${signWebhook(secret, ts - 301, 'k1', body)}` },
        { ...good, 'x-service-timestamp': 'yesterday' },
        { 'x-service-timestamp': String(ts), 'x-service-idempotency-key': 'k1' },
      ];
      const seen = new Set<string>();
      for (const headers of cases) {
        const answer = await send(headers);
        let serviceReason = 'verified';
        try {
          verifyWebhook(body, headers, [secret], { toleranceSeconds: 300 });
        } catch (error) {
          serviceReason = (error as WebhookVerificationError).reason;
        }
        expect(answer).toEqual({ status: 400, text: serviceReason });
        expect(WEBHOOK_VERIFICATION_REASONS).toContain(answer.text);
        seen.add(answer.text);
      }
      expect([...seen].sort()).toEqual(['invalid_signature', 'invalid_timestamp', 'missing_header', 'timestamp_out_of_tolerance']);
    } finally {
      child.kill();
    }
  });

  it('the service and the package share one verifyWebhook', async () => {
    const pkg = await import('../../packages/client/src/index.js');
    expect(verifyWebhook).toBe(pkg.verifyWebhook);
    expect(WebhookVerificationError).toBe(pkg.WebhookVerificationError);
    const docs = fs.readFileSync(path.join(ROOT, 'docs/webhooks.md'), 'utf8');
    for (const reason of WEBHOOK_VERIFICATION_REASONS) expect(docs).toContain(`\`${reason}\``);
  });
});

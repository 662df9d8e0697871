/**
 * npm run lint:openapi
 *
 * Lints the live /v1 and /admin/v1 OpenAPI documents with Redocly CLI (config: redocly.yaml).
 * Exits non-zero when either document has an error.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fetchLiveDocuments } from './generate-client.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface LintResult {
  ok: boolean;
  errors: number;
  warnings: number;
  output: string;
}

/** Writes a document to a temp file and runs `redocly lint` on it (offline, no telemetry). */
export function redoclyLint(doc: unknown, name: string): LintResult {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(doc, null, 2));
  try {
    const bin = path.join(root, 'node_modules/.bin/redocly');
    const res = spawnSync(bin, ['lint', file, '--config', path.join(root, 'redocly.yaml'), '--format', 'json'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      timeout: 120_000,
    });
    const output = `${res.stdout ?? ''}${res.stderr ?? ''}`;
    const start = (res.stdout ?? '').indexOf('{');
    let errors = -1;
    let warnings = -1;
    try {
      const report = JSON.parse(res.stdout.slice(start));
      errors = report.totals?.errors ?? -1;
      warnings = report.totals?.warnings ?? -1;
      const lines = (report.problems ?? []).map((p: any) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? '?'}`);
      return { ok: res.status === 0 && errors === 0, errors, warnings, output: lines.join('\n') || output };
    } catch {
      return { ok: false, errors, warnings, output };
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const docs = await fetchLiveDocuments();
  let failed = false;
  for (const [name, doc] of Object.entries(docs)) {
    const result = redoclyLint(doc, name);
    console.log(`${name}: ${result.errors} errors, ${result.warnings} warnings`);
    if (result.output) console.log(result.output);
    if (!result.ok) failed = true;
  }
  process.exit(failed ? 1 : 0);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

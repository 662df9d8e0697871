/**
 * Patient files out of the source tree: the fs driver's default folder is
 * under DATA_DIR (ignored by git), and a folder inside a git work tree that git does not ignore
 * stops the start, unless DOCUMENTS_ALLOW_IN_WORKTREE=1. Engine-independent (no database).
 */
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { checkDocumentFolder, workTreeOf } from '../../../src/modules/documents/storage/fs-folder.js';
import { ROOT, startService, type ServiceProcess } from '../../helpers/process.js';

const cleanup: string[] = [];
const running: ServiceProcess[] = [];
afterAll(() => {
  for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
});

/** A folder of the repository that .gitignore does not list (never created by these tests). */
const tracked = () => join(ROOT, `patient-files-${randomBytes(4).toString('hex')}`);

describe('the default document folder', () => {
  it('is under DATA_DIR, whose default ./data git ignores', async () => {
    expect(loadConfig({}).documents.dir).toBe(join('data', 'documents'));
    expect(loadConfig({ DATA_DIR: '/srv/dcm/data' }).documents.dir).toBe('/srv/dcm/data/documents');
    await expect(checkDocumentFolder(join(ROOT, 'data', 'documents'), false)).resolves.toBeUndefined();
  });
});

describe.skipIf(workTreeOf(ROOT) === null)('a document folder inside a git work tree', () => {
  it('is refused when git does not ignore it, naming DOCUMENT_DIR and the way out; allowed with DOCUMENTS_ALLOW_IN_WORKTREE', async () => {
    const dir = tracked();
    const refused = checkDocumentFolder(dir, false);
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(/DOCUMENT_DIR .*patient-files-.* is inside the git work tree .*DOCUMENTS_ALLOW_IN_WORKTREE=1/);
    await expect(checkDocumentFolder(dir, true)).resolves.toBeUndefined();
    expect(loadConfig({ DOCUMENTS_ALLOW_IN_WORKTREE: '1' }).documents.allowInWorktree).toBe(true);
    expect(loadConfig({}).documents.allowInWorktree).toBe(false);
    // The former default (<DATA_DIR>-documents, beside ./data) is ignored now, for the clones that have one.
    await expect(checkDocumentFolder(join(ROOT, 'data-documents'), false)).resolves.toBeUndefined();
    expect(existsSync(dir)).toBe(false);
  });

  it('is refused through a symbolic link too; a folder outside any work tree is not asked about', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'dcm-folder-'));
    cleanup.push(outside);
    await expect(checkDocumentFolder(join(outside, 'documents'), false)).resolves.toBeUndefined();
    symlinkSync(ROOT, join(outside, 'repo'));
    await expect(checkDocumentFolder(join(outside, 'repo', 'patient-files'), false)).rejects.toThrow(/DOCUMENT_DIR/);
  });

  it('stops the service at start with one line and exit code 2, writing nothing there', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dcm-folder-data-'));
    cleanup.push(dataDir);
    const dir = tracked();
    const service = startService({ DATA_DIR: dataDir, DOCUMENT_DIR: dir, PORT: '0', SEED_DEMO: 'false', LOG_LEVEL: 'warn' });
    running.push(service);
    expect(await service.exited).toBe(2);
    const lines = service.output().trim().split('\n');
    expect(lines, service.output()).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: Invalid configuration: DOCUMENT_DIR .*DOCUMENTS_ALLOW_IN_WORKTREE=1/);
    expect(existsSync(dir)).toBe(false);
  }, 180_000);
});

/**
 * The fs driver's folder must not be where `git add .` takes it: its files
 * stand for patient documents. A folder inside a git work tree is refused unless git ignores it
 * (the default, `<DATA_DIR>/documents`, is under `./data`, which `.gitignore` lists, so `npm
 * start` from a fresh clone works) or DOCUMENTS_ALLOW_IN_WORKTREE=1 says so. Outside any work tree
 * (a server's /var/lib/…) nothing is asked of git.
 */
import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { ConfigError } from '../../../config.js';

/** The folder as it is on disk (symbolic links followed as far as it exists): a link into a work tree is in it. */
function realFolder(dir: string): string {
  let existing = resolve(dir);
  const rest: string[] = [];
  while (!existsSync(existing) && dirname(existing) !== existing) {
    rest.unshift(basename(existing));
    existing = dirname(existing);
  }
  return join(realpathSync(existing), ...rest);
}

/** The top of the git work tree holding `path` (a `.git` folder, or file in a linked work tree), or null. */
export function workTreeOf(path: string): string | null {
  for (let dir = path; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return null;
  }
}

/** Whether git ignores the file at `path` of the work tree `root`: `git check-ignore` exits 0 when it does, 1 when not. */
function gitIgnores(root: string, path: string): Promise<boolean | 'unknown'> {
  return new Promise((done) => {
    execFile('git', ['-C', root, 'check-ignore', '-q', '--', path], { timeout: 10_000 }, (error) => {
      if (!error) done(true);
      else done(typeof error.code === 'number' && error.code === 1 ? false : 'unknown');
    });
  });
}

/**
 * Throws (ConfigError naming DOCUMENT_DIR) when files written in `dir` would be taken by `git
 * add`: inside a work tree and not ignored, or git cannot tell (not installed).
 */
export async function checkDocumentFolder(dir: string, allowInWorktree: boolean): Promise<void> {
  if (allowInWorktree) return;
  const folder = realFolder(dir);
  const root = workTreeOf(folder);
  if (root === null) return;
  // A file as the driver writes one (documents/<clinic>/<document>): the question is whether `git add` takes it.
  const probe = relative(root, join(folder, 'documents', '00000000-0000-0000-0000-000000000000', '00000000-0000-0000-0000-000000000000'));
  const ignored = await gitIgnores(root, probe);
  if (ignored === true) return;
  const why = ignored === false ? 'git does not ignore it' : 'git could not say whether it ignores it';
  throw new ConfigError(
    'DOCUMENT_DIR',
    `${folder} is inside the git work tree ${root} and ${why}: its files are patient documents that \`git add\` would take. Choose a folder outside it, or one .gitignore lists (the default <DATA_DIR>/documents with DATA_DIR=./data is), or set DOCUMENTS_ALLOW_IN_WORKTREE=1`,
  );
}

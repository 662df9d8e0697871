/**
 * How the CLI finds the service running on an embedded data folder: once it listens, the
 * service writes `DATA_DIR/dcm.server.json` (its pid, the back office's URL and the token to
 * call it with), readable by the folder's owner only, and removes it when it stops.
 *
 * Why a file in the data folder: whoever can read that folder can read the whole database
 * anyway, so a token kept beside it opens nothing new; and the CLI, given the same DATA_DIR,
 * finds the service of that very folder (never another one on the machine). The token is
 * ADMIN_TOKEN when set, otherwise one the service made up at start for this purpose only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isOwnerAlive } from './data-folder-lock.js';

const SERVER_FILE = 'dcm.server.json';

interface RunningServer {
  pid: number;
  /** Base URL of the back office, without `/admin/v1`. */
  adminUrl: string;
  token: string;
}

/** Writes the file (owner-only) and returns the function that removes it. */
export function announceServer(dataDir: string, server: Omit<RunningServer, 'pid'>): () => void {
  const file = path.join(dataDir, SERVER_FILE);
  const draft = `${file}.${process.pid}`;
  fs.writeFileSync(draft, JSON.stringify({ pid: process.pid, ...server }), { mode: 0o600 });
  fs.renameSync(draft, file);
  return () => {
    const current = readFile(file);
    if (current?.pid === process.pid) fs.rmSync(file, { force: true });
  };
}

function readFile(file: string): RunningServer | null {
  try {
    const value = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<RunningServer>;
    if (typeof value.pid !== 'number' || typeof value.adminUrl !== 'string' || typeof value.token !== 'string') return null;
    return value as RunningServer;
  } catch {
    return null;
  }
}

/** The service running on this data folder, or null (none, or one killed without removing the file). */
export function findRunningServer(dataDir: string): RunningServer | null {
  const server = readFile(path.join(dataDir, SERVER_FILE));
  return server && isOwnerAlive(server.pid) ? server : null;
}

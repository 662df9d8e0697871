/**
 * The embedded database is one process's alone: `DATA_DIR/dcm.lock` holds the pid of the
 * process that owns the folder.
 *
 * Every step is atomic, so processes started at the same moment never both own the folder:
 *   - A lock file is written in full under a private name, then `link`ed to `dcm.lock`: the
 *     link fails if the lock exists (exclusive create), and the lock is never seen half written.
 *   - A lock of a process that no longer runs (killed) is taken over, but only by the holder
 *     of a second lock, `dcm.lock.takeover`, taken the same way and held for a few file
 *     operations: while it is held nobody else removes `dcm.lock`, so the lock read as stale
 *     is the one removed, never a live lock that replaced it meanwhile.
 *   - An empty or unreadable lock file is not stale: another program may be writing it. It
 *     is read again for a moment, then refused with a message saying what to do.
 *
 * Why a pid and not a library such as proper-lockfile: that one judges staleness by the lock's
 * age (its owner touches it every few seconds), so a restart after a crash waits out the stale
 * period, and an owner whose event loop is busy longer than that (PGlite runs on the main
 * thread) loses its lock. A pid is checked at once and needs no timer. Its limits: one machine
 * and one pid namespace (a folder shared by two containers is not locked against each other).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const LOCK_FILE = 'dcm.lock';
const TAKEOVER_FILE = 'dcm.lock.takeover';
/** How long an empty or unreadable lock file is read again before giving up. */
const UNREADABLE_GRACE_MS = 1000;

/** The folder is another process's: the message says which and what to do (the CLI and `npm start` print it). */
export class DataFolderLockedError extends Error {
  static heldBy(dataDir: string, pid: number): DataFolderLockedError {
    return new DataFolderLockedError(
      `The data folder ${path.resolve(dataDir)} is in use by process ${pid}. ` +
        'Only one process can open the embedded database; stop that process, or use PostgreSQL (DATABASE_URL) to run several.',
    );
  }

  /** The lock file holds no pid: a program may be writing it, or one left it broken. */
  static unreadable(lockPath: string): DataFolderLockedError {
    return new DataFolderLockedError(
      `The data folder lock ${path.resolve(lockPath)} holds no process id: another process may be starting on this folder. ` +
        'If no process uses the folder, delete that file and start again.',
    );
  }
}

type Holder = { pid: number } | 'gone' | 'unreadable';

function readHolder(file: string): Holder {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw error;
  }
  return /^[1-9][0-9]{0,9}$/.test(text.trim()) ? { pid: Number(text.trim()) } : 'unreadable';
}

/** The holder, read again while it is empty or unreadable (a writer may be mid-write). */
function readHolderPatiently(file: string): Holder {
  const deadline = Date.now() + UNREADABLE_GRACE_MS;
  for (;;) {
    const holder = readHolder(file);
    if (holder !== 'unreadable' || Date.now() >= deadline) return holder;
    sleep(50);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether `pid` still owns what it locked. Our own pid in a lock we did not take is a lock of
 * an earlier run of a container whose process always gets the same pid: stale.
 */
export const isOwnerAlive = (pid: number) => pid !== process.pid && isAlive(pid);

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Creates `file` holding our pid if it does not exist: true if we created it. Atomic. */
function createExclusive(file: string): boolean {
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = fs.openSync(draft, 'wx');
  try {
    fs.writeSync(fd, String(process.pid));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(draft, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    fs.rmSync(draft, { force: true });
  }
}

/** Removes `file` if it holds our pid. */
function removeOwn(file: string): void {
  try {
    const holder = readHolder(file);
    if (holder !== 'gone' && holder !== 'unreadable' && holder.pid === process.pid) fs.unlinkSync(file);
  } catch {
    // already gone
  }
}

/**
 * Removes the lock of a dead process, under the takeover lock. Returns false when another
 * process is taking over right now (try again in a moment).
 */
function removeStaleLock(lockPath: string, dataDir: string): boolean {
  const takeoverPath = path.join(dataDir, TAKEOVER_FILE);
  if (!createExclusive(takeoverPath)) {
    const taker = readHolderPatiently(takeoverPath);
    if (taker === 'gone') return false;
    if (taker !== 'unreadable' && isOwnerAlive(taker.pid)) return false;
    // The taker died within its few file operations (or left a broken file): nothing it
    // removed or created is half done, because each step is atomic. Clear its lock; two
    // processes both doing this at the same instant is the one case left to chance.
    fs.rmSync(takeoverPath, { force: true });
    return false;
  }
  try {
    // Only the holder of the takeover lock removes someone else's lock, and a live owner
    // removes only its own: a dead pid read here is still in the file we unlink.
    const holder = readHolder(lockPath);
    if (holder !== 'gone' && holder !== 'unreadable' && !isOwnerAlive(holder.pid)) fs.unlinkSync(lockPath);
    return true;
  } finally {
    removeOwn(takeoverPath);
  }
}

/**
 * Takes the data folder for this process; returns the function that gives it back.
 * Throws DataFolderLockedError when another live process holds it.
 */
export function lockDataFolder(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 200; attempt++) {
    if (createExclusive(lockPath)) return () => removeOwn(lockPath);
    const holder = readHolderPatiently(lockPath);
    if (holder === 'gone') continue; // released meanwhile
    if (holder === 'unreadable') throw DataFolderLockedError.unreadable(lockPath);
    if (isOwnerAlive(holder.pid)) throw DataFolderLockedError.heldBy(dataDir, holder.pid);
    if (!removeStaleLock(lockPath, dataDir)) sleep(5 + Math.random() * 20);
  }
  throw new Error(`Could not lock the data folder ${path.resolve(dataDir)}: other processes keep taking it over.`);
}

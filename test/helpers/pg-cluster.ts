/**
 * A PostgreSQL cluster of one test alone, made with the machine's own PostgreSQL binaries
 * (Debian's, version 15) on a port of the test's choosing, and removed by the test: the
 * shared server on 5432 is never stopped. As root the tools run as user postgres (runuser),
 * since initdb and the server refuse to run as root.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const PG_BIN = '/usr/lib/postgresql/15/bin';

/** A PostgreSQL cluster of this test alone (initdb as user postgres when run as root). */
export class PrivateCluster {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcm-pg-'));
  constructor(readonly port: number) {}

  #command(tool: string, args: string[]): [string, string[]] {
    return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', path.join(PG_BIN, tool), ...args]] : [path.join(PG_BIN, tool), args];
  }

  #run(tool: string, args: string[]): void {
    const [cmd, argv] = this.#command(tool, args);
    execFileSync(cmd, argv, { stdio: 'pipe', timeout: 60_000 });
  }

  /**
   * Stops the server without blocking this process (requests in flight keep going): `fast`
   * terminates every session (57P01), `immediate` kills the server as a crash would (recovery at the next start).
   */
  stopAsync(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    return this.#runAsync('pg_ctl', ['-D', path.join(this.dir, 'data'), '-m', mode, '-w', 'stop']);
  }

  /** Starts the server without blocking this process; resolves once it accepts connections. */
  startAsync(): Promise<void> {
    return this.#runAsync('pg_ctl', this.#startArgs());
  }

  #runAsync(tool: string, args: string[]): Promise<void> {
    const [cmd, argv] = this.#command(tool, args);
    return new Promise((resolve, reject) => execFile(cmd, argv, { timeout: 60_000 }, (error) => (error ? reject(error) : resolve())));
  }

  init(): void {
    if (process.getuid?.() === 0) execFileSync('chown', ['postgres', this.dir]);
    this.#run('initdb', ['-D', path.join(this.dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync']);
  }

  /**
   * A streaming replica of `primary` in this cluster's folder (`pg_basebackup -R`: the base
   * backup and the standby settings, primary_conninfo and standby.signal), to start() on this
   * cluster's port. The primary's defaults allow it: wal_level=replica, max_wal_senders=10 and
   * initdb's pg_hba lines for replication from 127.0.0.1.
   */
  replicaOf(primary: PrivateCluster): void {
    if (process.getuid?.() === 0) execFileSync('chown', ['postgres', this.dir]);
    this.#run('pg_basebackup', [
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
      '-D',
      path.join(this.dir, 'data'),
      '-h',
      '127.0.0.1',
      '-p',
      String(primary.port),
      '-U',
      'postgres',
    ]);
  }

  /** `settings`: more `-c name=value` server settings (a replica's shared_preload_libraries). */
  #startArgs(settings: string[] = []): string[] {
    const options = [`-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`, ...settings.map((s) => `-c ${s}`)].join(' ');
    return ['-D', path.join(this.dir, 'data'), '-o', options, '-l', path.join(this.dir, 'log'), '-w', 'start'];
  }

  start(settings: string[] = []): void {
    this.#run('pg_ctl', this.#startArgs(settings));
  }

  stop(): void {
    this.#run('pg_ctl', ['-D', path.join(this.dir, 'data'), '-m', 'fast', '-w', 'stop']);
  }

  remove(): void {
    try {
      this.stop();
    } catch {
      // not running
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }
}

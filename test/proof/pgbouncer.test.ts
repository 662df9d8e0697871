/**
 * The service behind PgBouncer in transaction mode (PostgreSQL only), as docs/operations.md
 * ("A pooler in front of PostgreSQL") says to run it: DATABASE_URL through a private pgbouncer
 * (Debian's package, installed by .ci/run), DATABASE_DIRECT_URL to the server for what needs a
 * session (the change feed's LISTEN, the migrations' lock), and the prepared-statement setting
 * the page gives for the installed version: `DB_PREPARE_AFTER=0` before 1.21,
 * `max_prepared_statements` in the pooler's configuration from 1.21. One run of the workload:
 * the start (migrations), concurrent creations in transactions with their keys replayed, reads,
 * and a change made outside the service that the read cache follows. PgBouncer's own counters
 * show the transactions went through it.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dedicatedDatabase } from '../helpers/databases.js';
import { freePort, waitFor } from '../helpers/process.js';
import { ENGINE } from '../helpers/server.js';
import { call, expectCacheFollowsChanges, expectNoUnhandled, sql, startWithClinic, stop } from '../helpers/service-faults.js';

const PGBOUNCER = '/usr/sbin/pgbouncer';
const installed = fs.existsSync(PGBOUNCER);

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** `PgBouncer 1.18.0` → [1, 18]. */
function pgbouncerVersion(): [number, number] {
  const match = /PgBouncer (\d+)\.(\d+)/.exec(execFileSync(PGBOUNCER, ['--version'], { encoding: 'utf8' }));
  if (!match) throw new Error('pgbouncer --version: no version');
  return [Number(match[1]), Number(match[2])];
}

/** Named prepared statements are kept across a transaction-mode pool from 1.21 on (max_prepared_statements). */
const keepsPrepared = ([major, minor]: [number, number]) => major > 1 || minor >= 21;

/** A pgbouncer of this test alone, in transaction mode, on a free port, in front of one database of 127.0.0.1:5432. */
async function startPgbouncer(database: string, target: URL): Promise<{ port: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcm-pgbouncer-'));
  const port = await freePort();
  const version = pgbouncerVersion();
  fs.writeFileSync(path.join(dir, 'users.txt'), '"postgres" ""\n');
  fs.writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `${database} = host=${target.hostname} port=${target.port || 5432} dbname=${database}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      'admin_users = postgres',
      'pool_mode = transaction',
      'default_pool_size = 4',
      'max_client_conn = 200',
      // The docs' setting from 1.21 (at least the service's named statements, MAX_NAMED in src/db/prepared-statements.ts).
      ...(keepsPrepared(version) ? ['max_prepared_statements = 200'] : []),
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
    ].join('\n'),
  );
  // PgBouncer refuses to run as root: as user postgres, like the private clusters.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync('chown', ['-R', 'postgres', dir]);
  const [cmd, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', PGBOUNCER, path.join(dir, 'pgbouncer.ini')]]
    : [PGBOUNCER, [path.join(dir, 'pgbouncer.ini')]];
  const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  cleanups.push(async () => {
    await stop(child);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const log = () => out + (fs.existsSync(path.join(dir, 'pgbouncer.log')) ? fs.readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8') : '');
  await waitFor(() => /process up|listening on/i.test(log()) || child.exitCode !== null, 10_000, 'pgbouncer');
  if (child.exitCode !== null) throw new Error(`pgbouncer exited:\n${log()}`);
  return { port };
}

describe.skipIf(ENGINE === 'pglite')('the service behind PgBouncer in transaction mode', () => {
  // Not a silent pass: without the binary the test says it was skipped, and why (.ci/run installs it).
  it.skipIf(!installed)(
    `serves writes, reads, transactions and its read caches through the pooler${installed ? '' : ` (skipped: ${PGBOUNCER} not installed)`}`,
    async () => {
      const database = await dedicatedDatabase(process.env.DATABASE_URL!, `dcm_t_${process.env.DCM_TEST_RUN}`, process.env.DCM_TEST_TEMPLATE);
      cleanups.push(() => database.drop());
      const direct = new URL(database.url);
      const name = direct.pathname.slice(1);
      const { port } = await startPgbouncer(name, direct);
      const pooled = new URL(database.url);
      pooled.hostname = '127.0.0.1';
      pooled.port = String(port);

      const env: Record<string, string> = { DATABASE_URL: pooled.toString(), DATABASE_DIRECT_URL: direct.toString() };
      // docs/operations.md: before 1.21 the service must not prepare; from 1.21 the pooler keeps what it prepares.
      env.DB_PREPARE_AFTER = keepsPrepared(pgbouncerVersion()) ? '1' : '0';
      const service = await startWithClinic(env, cleanups);
      const { proc, base, token, facilityId } = service;

      // Creations, each one transaction (BEGIN with its first statement, COMMIT with its last), concurrently;
      // 20 and their 20 replays stay within a key's 60 requests in 10 s (spec 8).
      const create = (i: number) =>
        call(
          base,
          'POST',
          '/v1/patients',
          token,
          { firstName: 'Ada', lastName: `Pool ${i}`, phone: `+39 333 200 ${String(1000 + i).slice(-4)}`, facilityId },
          { 'idempotency-key': `pool-${i}` },
        );
      const created = await Promise.all(Array.from({ length: 20 }, (_, i) => create(i)));
      for (const answer of created) expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      // Their keys replayed: the same answers, no new rows.
      const replayed = await Promise.all(Array.from({ length: 20 }, (_, i) => create(i)));
      expect(replayed.map((a) => a.body.id)).toEqual(created.map((a) => a.body.id));
      const rows = await sql<{ n: number }>(direct.toString(), `SELECT count(*)::int AS n FROM patients WHERE last_name LIKE 'Pool %'`);
      expect(rows[0]!.n).toBe(20);

      // Reads: by id, and a search (several statements, some of them read from extensions).
      const one = await call(base, 'GET', `/v1/patients/${created[0]!.body.id}`, token);
      expect(one.status).toBe(200);
      expect(one.body.lastName).toBe('Pool 0');
      const found = await call(base, 'GET', `/v1/patients/search?q=${encodeURIComponent('+39 333 200 1017')}`, token);
      expect(found.status).toBe(200);
      expect(found.body.data[0].id).toBe(created[17]!.body.id);

      // The change feed listens on the direct connection: the cache serves, and follows a change.
      await expectCacheFollowsChanges(service, direct.toString(), Date.now() + 10_000);

      // The transactions went through the pooler (its admin console's counters).
      const stats = await sql<{ database: string; total_xact_count: string }>(`postgres://postgres@127.0.0.1:${port}/pgbouncer`, 'SHOW STATS');
      expect(Number(stats.find((s) => s.database === name)?.total_xact_count ?? 0)).toBeGreaterThan(40);
      expectNoUnhandled(proc);
      expect(proc.output()).not.toMatch(/prepared statement .* does not exist|"level":50/);
    },
    120_000,
  );
});

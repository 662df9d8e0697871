/**
 * Read replicas (src/db/replicas.ts) against a real streaming replica built here: a private
 * primary cluster and a `pg_basebackup -R` copy of it started on another port, both made and
 * removed by this file (the shared server on 5432 is not used). The replica loads
 * pg_stat_statements, so the reads it answered are counted by the replica itself.
 * Runs with DATABASE_URL (PostgreSQL); the embedded database has no replicas.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { Redis } from 'ioredis';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeContext, createContext } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import { MemoryWriteMarks, SharedWriteMarks, lastRecordEnd, parseLsn } from '../../src/db/lsn.js';
import { createApiKey } from '../../src/modules/auth/index.js';
import { SCOPES } from '../../src/modules/auth/scopes.js';
import { callTool } from '../agents/mcp-client.js';
import type { Tenant } from '../helpers/factories.js';
import { PG_BIN, PrivateCluster } from '../helpers/pg-cluster.js';
import { freePort, waitFor } from '../helpers/process.js';
import { ALL_DAY, at, makeCalendar } from '../helpers/seed.js';
import { ADMIN_TOKEN, ENGINE, startTestServer, type TestServer } from '../helpers/server.js';

const REPLICA_SETTINGS = ['shared_preload_libraries=pg_stat_statements', 'hot_standby_feedback=on'];
/** The replica's connect and statement bounds here (REPLICA_CONNECT_TIMEOUT_MS, REPLICA_STATEMENT_TIMEOUT_MS). */
const BOUND_MS = 1000;
const runs = ENGINE === 'postgres' && fs.existsSync(path.join(PG_BIN, 'pg_basebackup'));

let primary: PrivateCluster;
let replica: PrivateCluster;
let server: TestServer;
let tenant: Tenant;
let calendarId: string;
let patientId: string;
const cleanups: (() => Promise<void> | void)[] = [];

async function query<T>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Statements on `patients` or `appointments` the replica answered (its pg_stat_statements), the counting query left out. */
async function replicaCalls(table: 'patients' | 'appointments'): Promise<number> {
  const [row] = await query<{ n: number }>(
    replica.url,
    `SELECT coalesce(sum(calls), 0)::int AS n FROM pg_stat_statements WHERE query ILIKE $1 AND query NOT ILIKE '%pg_stat_statements%'`,
    [`%${table === 'patients' ? 'patient' : table}%`],
  );
  return row!.n;
}

const status = () => server.ctx.reads.status()[0]!;

/** Until the replica has replayed everything the primary has written now. */
async function caughtUp(): Promise<void> {
  const [{ lsn }] = (await query<{ lsn: string }>(primary.url, 'SELECT pg_current_wal_lsn()::text AS lsn')) as [{ lsn: string }];
  const deadline = Date.now() + 20_000;
  for (;;) {
    const [row] = await query<{ done: boolean }>(replica.url, 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [lsn]);
    if (row!.done && status().state === 'ready') return;
    if (Date.now() > deadline) throw new Error(`the replica did not replay ${lsn} (${JSON.stringify(status())})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let slot = 0;
/** Books the next free half hour of the calendar for the patient; returns the appointment's id. */
async function book(token = tenant.token): Promise<string> {
  slot += 1;
  const res = await server.call('POST', '/v1/appointments', {
    token,
    body: { calendarId, patientId, start: at(3 + Math.floor(slot / 40), 0, 30 * (slot % 40)) },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

async function listed(token = tenant.token): Promise<string[]> {
  const res = await server.call('GET', `/v1/appointments?patientId=${patientId}&limit=100`, { token });
  expect(res.status, res.text).toBe(200);
  return (res.body.data as { id: string }[]).map((a) => a.id);
}

async function search(token = tenant.token): Promise<number> {
  return (await server.call('GET', '/v1/patients/search?q=ada%20lovelace', { token })).status;
}

beforeAll(async () => {
  if (!runs) return;
  try {
    primary = new PrivateCluster(await freePort());
    cleanups.push(() => primary.remove());
    primary.init();
    primary.start();
    await query(primary.url, 'CREATE EXTENSION pg_stat_statements');
    replica = new PrivateCluster(await freePort());
    cleanups.push(() => replica.remove());
    replica.replicaOf(primary);
    replica.start(REPLICA_SETTINGS);
    server = await startTestServer({
      config: {
        databaseReplicaUrls: [`${replica.url}?application_name=dcm-replica-test`],
        replicaMaxLagMs: 2000,
        replicaConnectTimeoutMs: BOUND_MS,
        replicaStatementTimeoutMs: BOUND_MS,
      },
      open: async (config) => {
        const ctx = await createContext({ ...config, databaseUrl: primary.url });
        return { ctx, drop: () => closeContext(ctx) };
      },
    });
    cleanups.push(() => server.close());
    tenant = await server.factories.tenant();
    calendarId = (await makeCalendar(server, tenant, { workingHours: ALL_DAY, slotMinutes: 30, minNoticeMinutes: 0, horizonDays: 60 })).id;
    const created = await server.call('POST', '/v1/patients', { token: tenant.token, body: { firstName: 'Ada', lastName: 'Lovelace', phone: '333 000 1234' } });
    expect(created.status, created.text).toBe(201);
    patientId = created.body.id as string;
    await caughtUp();
    await new Promise((r) => setTimeout(r, 600)); // a poll or two: the router learns the replica's new position
  } catch (error) {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups.length = 0;
    throw error;
  }
}, 240_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('WAL positions', () => {
  it('are compared as numbers, never as text', () => {
    expect(parseLsn('0/10')! > parseLsn('0/9')!).toBe(true);
    expect(parseLsn('1/0')! > parseLsn('0/FFFFFFFF')!).toBe(true);
    expect(parseLsn('16/B374D848')).toBe(0x16b374d848n);
    expect(parseLsn(null)).toBeNull();
    expect(() => parseLsn('16-B374D848')).toThrow(/not an LSN/);
  });

  it('a write mark at a page start is the end of the record before it (where a replica stops)', () => {
    const [block, segment] = [8192n, 16n * 1024n * 1024n];
    expect(lastRecordEnd(3n * block + 24n, block, segment)).toBe(3n * block);
    expect(lastRecordEnd(2n * segment + 40n, block, segment)).toBe(2n * segment);
    expect(lastRecordEnd(2n * segment + 24n, block, segment)).toBe(2n * segment + 24n);
    expect(lastRecordEnd(3n * block + 200n, block, segment)).toBe(3n * block + 200n);
  });

  it('keep the larger of two for a key, and forget it after their time', async () => {
    const marks = new MemoryWriteMarks(60_000);
    await marks.record('k', parseLsn('0/A')!);
    await marks.record('k', parseLsn('0/9')!);
    expect(await marks.get('k')).toBe(10n);
    expect(await marks.get('other')).toBe(0n);
    const short = new MemoryWriteMarks(-1);
    await short.record('k', 5n);
    expect(await short.get('k')).toBe(0n);
  });
});

describe('write marks in Redis (REDIS_URL, several API processes)', () => {
  it('are seen by another process, and the larger of two is kept, past what a double holds', async () => {
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      const keyId = `replica-test-${randomUUID()}`;
      const one = new SharedWriteMarks(redis, new MemoryWriteMarks(60_000), 60_000);
      const other = new SharedWriteMarks(redis, new MemoryWriteMarks(60_000), 60_000);
      await one.record(keyId, parseLsn('0/10')!);
      expect(await other.get(keyId)).toBe(16n);
      await other.record(keyId, parseLsn('0/9')!);
      expect(await one.get(keyId)).toBe(16n);
      // 2^64 - 16 and 2^64 - 32 are one double: the script compares fixed-width text instead.
      await one.record(keyId, parseLsn('FFFFFFFF/FFFFFFF0')!);
      await other.record(keyId, parseLsn('FFFFFFFF/FFFFFFE0')!);
      expect(await new SharedWriteMarks(redis, new MemoryWriteMarks(60_000), 60_000).get(keyId)).toBe(parseLsn('FFFFFFFF/FFFFFFF0'));
      expect(await redis.pttl(`dcm:wrote:${keyId}`)).toBeGreaterThan(0);
      await redis.del(`dcm:wrote:${keyId}`);
    } finally {
      redis.disconnect();
    }
  });
});

describe('DATABASE_REPLICA_URLS without DATABASE_URL', () => {
  it('is refused at start: the embedded database has no replicas', () => {
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://postgres@127.0.0.1:5433/postgres' })).toThrow(
      /DATABASE_REPLICA_URLS needs DATABASE_URL: the embedded database \(PGlite\) has no replicas/,
    );
    expect(loadConfig({ DATABASE_URL: 'postgres://a@h/db', DATABASE_REPLICA_URLS: ' postgres://a@r1/db , postgres://a@r2/db ' }).databaseReplicaUrls).toEqual([
      'postgres://a@r1/db',
      'postgres://a@r2/db',
    ]);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://a@h/db', DATABASE_REPLICA_URLS: 'mysql://r/db' })).toThrow(/DATABASE_REPLICA_URLS/);
  });
});

describe.skipIf(!runs)('a real streaming replica', () => {
  it('answers the lag-tolerant reads of a key that wrote nothing lately', async () => {
    const before = await replicaCalls('patients');
    const routed = status().reads;
    for (let i = 0; i < 10; i++) expect(await search()).toBe(200);
    expect(await replicaCalls('patients')).toBeGreaterThanOrEqual(before + 10);
    expect(status().reads - routed).toBe(10);
    // And what it answers is the data: the patient inserted before it caught up is listed.
    const hit = await server.call('GET', '/v1/patients/search?q=ada%20lovelace', { token: tenant.token });
    expect((hit.body.data as { id: string }[]).map((p) => p.id)).toContain(patientId);
  });

  it('shows a booking to the key that made it on the very next list, then reads from the replica again', async () => {
    for (let i = 0; i < 15; i++) {
      const id = await book();
      expect(await listed()).toContain(id);
    }
    await caughtUp();
    await new Promise((r) => setTimeout(r, 600)); // a poll or two: the router learns the replica's new position
    const before = await replicaCalls('appointments');
    await listed();
    expect(await replicaCalls('appointments')).toBeGreaterThan(before);
  });

  it('holds for every write road: an idempotent replay, and a voice agent booking then listing through /mcp', async () => {
    const voice = await createApiKey(server.ctx.db, tenant.clinicId, { name: 'voce', scopes: [...SCOPES], agent: 'voice_agent' });
    await caughtUp();
    await new Promise((r) => setTimeout(r, 600));
    // Replay paused: the replica stays within the lag bound for a while but holds none of these
    // writes, so a road that kept no write position would answer from it without the booking.
    await query(replica.url, 'SELECT pg_wal_replay_pause()');
    try {
      await writeRoads(voice.token);
    } finally {
      await query(replica.url, 'SELECT pg_wal_replay_resume()');
    }
    await caughtUp();
  });

  async function writeRoads(token: string): Promise<void> {
    for (let i = 0; i < 3; i++) {
      slot += 1;
      const args = { calendarId, patientId, start: at(3 + Math.floor(slot / 40), 0, 30 * (slot % 40)) };
      const booked = await callTool(server.url, token, 'book_appointment', args);
      expect(booked.isError, booked.content[0]?.text).toBeFalsy();
      const listedByAgent = await callTool(server.url, token, 'list_patient_appointments', { patientId });
      expect(listedByAgent.content.map((c) => c.text).join('\n')).toContain(booked.structuredContent.id);
    }
    // A replay answers the first booking again; the key's reads still see it.
    slot += 1;
    const body = { calendarId, patientId, start: at(3 + Math.floor(slot / 40), 0, 30 * (slot % 40)) };
    const headers = { 'idempotency-key': `replica-${slot}` };
    const first = await server.call('POST', '/v1/appointments', { token, body, headers });
    expect(first.status, first.text).toBe(201);
    const replay = await server.call('POST', '/v1/appointments', { token, body, headers });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await listed(token)).toContain(first.body.id);
  }

  it('with replay paused: the writer reads from the primary at once, every key once the replica is over the lag bound', async () => {
    const other = await server.factories.key(tenant.clinicId, SCOPES);
    await caughtUp();
    await query(replica.url, 'SELECT pg_wal_replay_pause()');
    try {
      const routed = status().reads;
      const id = await book();
      expect(await listed()).toContain(id);
      expect(status().reads).toBe(routed); // the writer's read did not touch the replica
      // A key that did not write may see the replica within the bound; past it, the replica is skipped.
      await waitFor(() => status().state === 'lagging', 10_000, 'the paused replica to be marked lagging');
      expect(await listed(other.token)).toContain(id);
      const metrics = await server.call('GET', '/metrics', { token: ADMIN_TOKEN });
      expect(metrics.text).toMatch(new RegExp(`dcm_replica_state\\{replica="127.0.0.1:${replica.port}/postgres",state="lagging"\\} 1`));
      expect(metrics.text).toMatch(/dcm_replica_lag_seconds\{replica="[^"]+"\} (\d+\.?\d*|\+Inf)/);
      expect((await server.call('GET', '/readyz')).status).toBe(200);
    } finally {
      await query(replica.url, 'SELECT pg_wal_replay_resume()');
    }
    await caughtUp();
    const routed = status().reads;
    expect(await listed(other.token)).toHaveLength((await listed()).length);
    expect(status().reads).toBeGreaterThan(routed);
  });

  it('fails no request when the replica stops mid-run, and uses it again once it is back', async () => {
    let stopped = false;
    const statuses: number[] = [];
    const load = async () => {
      while (!stopped) statuses.push(await search(), (await server.call('GET', `/v1/appointments?patientId=${patientId}`, { token: tenant.token })).status);
    };
    const loads = [load(), load(), load()];
    await new Promise((r) => setTimeout(r, 300));
    await replica.stopAsync();
    await new Promise((r) => setTimeout(r, 700));
    stopped = true;
    await Promise.all(loads);
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(status().state).toBe('unreachable');
    expect((await server.call('GET', '/readyz')).status).toBe(200);
    const metrics = await server.call('GET', '/metrics', { token: ADMIN_TOKEN });
    expect(metrics.text).toMatch(/dcm_replica_state\{replica="[^"]+",state="unreachable"\} 1/);

    replica.start(REPLICA_SETTINGS);
    await caughtUp();
    const before = await replicaCalls('patients');
    expect(await search()).toBe(200);
    expect(await replicaCalls('patients')).toBeGreaterThan(before);
  });

  it('bounds a read on a replica that hangs (every process stopped): it runs on the primary, and the replica is used again once it answers', async () => {
    await caughtUp();
    const processes = clusterProcesses(replica);
    expect(processes.length).toBeGreaterThan(3); // the postmaster, its startup process, walreceiver, backends
    const answers: { status: number; ms: number }[] = [];
    let stopped = false;
    const load = async () => {
      while (!stopped) {
        const started = Date.now();
        answers.push({ status: await search(), ms: Date.now() - started });
      }
    };
    signal(processes, 'SIGSTOP');
    const loads = [load(), load(), load()];
    try {
      await new Promise((r) => setTimeout(r, 3 * BOUND_MS));
      stopped = true;
      expect(status().state).toBe('unreachable');
    } finally {
      // Resumed before the reads are awaited: a read the bound did not end finishes now, and its time shows it.
      signal(processes, 'SIGCONT');
    }
    await Promise.all(loads);
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    // A read pays the bound at most once (a connection not given, or a statement not answered), then the primary's answer.
    const slowest = Math.max(...answers.map((a) => a.ms));
    expect(slowest).toBeLessThan(BOUND_MS + 1_000);
    // Once marked, the replica is skipped: the reads after the first ones do not wait for it.
    expect(answers.length).toBeGreaterThan(20);
    console.log(`replica hung ${3 * BOUND_MS} ms: ${answers.length} reads, slowest ${slowest} ms, bound ${BOUND_MS} ms`);

    await caughtUp();
    const before = await replicaCalls('patients');
    const routed = status().reads;
    expect(await search()).toBe(200);
    expect(await replicaCalls('patients')).toBeGreaterThan(before);
    expect(status().reads).toBeGreaterThan(routed);
  });
});

/** The cluster's postmaster (postmaster.pid's first line) and every process it started (by /proc's parent ids). */
function clusterProcesses(cluster: PrivateCluster): number[] {
  const postmaster = Number(fs.readFileSync(path.join(cluster.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        // /proc/<pid>/stat: "pid (name) state ppid …"; the name may hold spaces, so read after its ')'.
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false; // ended meanwhile
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

function signal(pids: number[], name: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // ended meanwhile
    }
  }
}

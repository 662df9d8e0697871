/**
 * Read replicas (DATABASE_REPLICA_URLS): PostgreSQL's own streaming replicas of DATABASE_URL take
 * the reads that may lag a little (the lists, search, availability, the caller context, events,
 * deliveries, document metadata: the routes that call `reads.run`). Everything else, and every
 * write, stays on the primary (`ctx.db`).
 *
 * The rule, written once here (`#choose`): a lag-tolerant read of an API key goes to a replica
 *  - that answered the last poll (every POLL_MS) in recovery, i.e. still a replica,
 *  - whose lag is within REPLICA_MAX_LAG_MS (2 s), counting the time since that poll, and
 *  - whose replayed position (`pg_last_wal_replay_lsn()`, as last polled) is at or past the
 *    key's last write position (`pg_current_wal_insert_lsn()` on the primary, taken after the
 *    write committed and before its answer left: `wrote`);
 * else to the primary. A replay position only grows while the replica runs, and is forgotten
 * when the replica stops answering, so a polled one never overstates what the replica holds.
 *
 * Lag is measured against the primary's own position, polled at the same pace: a replica
 * holding everything the primary had written at time t is at most now - t behind. On an idle
 * primary a caught-up replica is 0 behind (replay timestamps would age instead).
 *
 * A read that fails on a replica for a database reason (the replica stopped, a query cancelled
 * by a recovery conflict) runs again on the primary: reads have no effect, so a second run is
 * safe, and no request fails because a replica did. A replica that hangs (it accepts connections
 * but never answers: its processes stopped, a network that drops packets) is bounded the same
 * way: a connection it does not open within REPLICA_CONNECT_TIMEOUT_MS, or a statement it does
 * not answer within REPLICA_STATEMENT_TIMEOUT_MS (its connection is then ended: pg-client.ts
 * `withStatementDeadline`), fails as a lost connection; the read runs on the primary and the
 * replica is unreachable until a poll is answered again.
 */
import { sql } from 'kysely';
import type { Redis } from 'ioredis';
import { openDatabase, type Database } from './database.js';
import { isDatabaseUnreachable } from './errors.js';
import { MemoryWriteMarks, SharedWriteMarks, lastRecordEnd, parseLsn, type WriteMarks } from './lsn.js';
import type { Db } from './transaction.js';

/** How often the primary's and each replica's positions are read. */
const POLL_MS = 250;
/** A replica that does not answer its poll within this is unreachable until it does. */
const POLL_TIMEOUT_MS = 1000;
/** Larger than every LSN: a key whose write position could not be read reads from the primary. */
const UNKNOWN_WRITE = (1n << 64n) - 1n;

export type ReplicaState = 'starting' | 'ready' | 'lagging' | 'unreachable' | 'not_in_recovery';

export interface ReplicaStatus {
  /** host:port/database, no credentials (the metrics' label). */
  name: string;
  state: ReplicaState;
  /** Milliseconds behind the primary at the last poll; Infinity when further behind than is tracked. */
  lagMs: number | null;
  /** Lag-tolerant reads it answered since start. */
  reads: number;
}

/** Who reads: an API key (`keyId`), or the back office (null: always the primary). */
interface Reader {
  keyId: string | null;
}

export interface ReadRouter {
  /** Whether replicas are configured at all. */
  readonly replicated: boolean;
  /** Runs a lag-tolerant read on a replica that may answer it for this reader, else on the primary. */
  run<T>(reader: Reader, read: (db: Db) => Promise<T>): Promise<T>;
  /** After a key's write committed (before its answer is sent): keeps the key's write position. */
  wrote(keyId: string): Promise<void>;
  status(): ReplicaStatus[];
  /** Lag-tolerant reads the primary answered (no replica could). */
  primaryReads(): number;
  /** Keeps the keys' write positions in Redis, seen by every API process (src/app.ts). */
  shareMarks(redis: Redis): void;
  close(): Promise<void>;
}

/** Without replicas: every read on the primary, nothing recorded (no cost for a deployment without them). */
export function primaryOnly(db: Db): ReadRouter {
  return {
    replicated: false,
    run: (_reader, read) => read(db),
    wrote: async () => {},
    status: () => [],
    primaryReads: () => 0,
    shareMarks: () => {},
    close: async () => {},
  };
}

interface Sample {
  lsn: bigint;
  at: number;
}

class Replica {
  state: ReplicaState = 'starting';
  replay: bigint | null = null;
  lagMs: number | null = null;
  polledAt = 0;
  reads = 0;
  constructor(
    readonly name: string,
    readonly database: Database,
  ) {}

  lost(): void {
    this.state = 'unreachable';
    this.replay = null;
    this.lagMs = null;
  }
}

/** A replica's connection string with `application_name=dcm-replica-read` unless it names one (counted on the replica). */
function withApplicationName(url: string): string {
  const parsed = new URL(url);
  if (!parsed.searchParams.has('application_name')) parsed.searchParams.set('application_name', 'dcm-replica-read');
  return parsed.toString();
}

function nameOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

/** Whether a failed read failed in the database (worth a second run on the primary) rather than in the service's rules. */
function databaseFailure(error: unknown): boolean {
  if (isDatabaseUnreachable(error)) return true;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

interface ReplicaOptions {
  primary: Db;
  urls: string[];
  maxLagMs: number;
  /** The replica's bounds: opening a connection, and each statement (src/db/database.ts `bounds`). */
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  poolMax: number;
  prepareAfter?: number;
  wireSpeedUps?: boolean;
}

class ReplicaRouter implements ReadRouter {
  readonly replicated = true;
  readonly #local: MemoryWriteMarks;
  #marks: WriteMarks;
  readonly #ttlMs: number;
  readonly #samples: Sample[] = [];
  #primaryReads = 0;
  #next = 0;
  #polling: Promise<void> | null = null;
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly primary: Db,
    private readonly replicas: Replica[],
    private readonly maxLagMs: number,
  ) {
    // A mark may be forgotten once any replica still short of it is over the lag bound anyway
    // (it lacks a write this old): the bound, not the mark, then keeps the key off that replica.
    this.#ttlMs = Math.max(10_000, 5 * maxLagMs);
    this.#local = new MemoryWriteMarks(this.#ttlMs);
    this.#marks = this.#local;
    this.#timer = setInterval(() => void this.poll(), POLL_MS);
    this.#timer.unref();
    void this.poll();
  }

  shareMarks(redis: Redis): void {
    this.#marks = new SharedWriteMarks(redis, this.#local, this.#ttlMs);
  }

  async run<T>(reader: Reader, read: (db: Db) => Promise<T>): Promise<T> {
    const replica = await this.#choose(reader);
    if (!replica) {
      this.#primaryReads += 1;
      return read(this.primary);
    }
    try {
      const answer = await read(replica.database.db);
      replica.reads += 1;
      return answer;
    } catch (error) {
      if (!databaseFailure(error)) throw error;
      if (isDatabaseUnreachable(error)) replica.lost();
      this.#primaryReads += 1;
      return read(this.primary);
    }
  }

  async #choose(reader: Reader): Promise<Replica | null> {
    if (reader.keyId === null) return null;
    let written: bigint;
    try {
      written = await this.#marks.get(reader.keyId);
    } catch {
      return null; // the key's position is unknown (Redis down): the primary holds its writes
    }
    const now = Date.now();
    const fit = this.replicas.filter(
      (r) => r.state === 'ready' && r.replay !== null && r.replay >= written && r.lagMs !== null && r.lagMs + (now - r.polledAt) <= this.maxLagMs,
    );
    if (fit.length === 0) return null;
    this.#next = (this.#next + 1) % fit.length;
    return fit[this.#next]!;
  }

  async wrote(keyId: string): Promise<void> {
    let lsn = UNKNOWN_WRITE;
    try {
      const { rows } = await sql<{ lsn: string; block: string; segment: string }>`
        SELECT pg_current_wal_insert_lsn()::text AS lsn, current_setting('wal_block_size') AS block,
               pg_size_bytes(current_setting('wal_segment_size'))::text AS segment`.execute(this.primary);
      const row = rows[0]!;
      lsn = lastRecordEnd(parseLsn(row.lsn)!, BigInt(row.block), BigInt(row.segment));
    } catch {
      // The position is unknown: this process reads the key from the primary until the mark is forgotten.
    }
    try {
      await this.#marks.record(keyId, lsn);
    } catch {
      await this.#local.record(keyId, UNKNOWN_WRITE);
    }
  }

  /** One poll at a time: a slow one is not stacked on. */
  poll(): Promise<void> {
    this.#polling ??= this.#poll().finally(() => (this.#polling = null));
    return this.#polling;
  }

  async #poll(): Promise<void> {
    const at = Date.now();
    try {
      const { rows } = await withTimeout(sql<{ lsn: string }>`SELECT pg_current_wal_lsn()::text AS lsn`.execute(this.primary), POLL_TIMEOUT_MS);
      this.#samples.push({ lsn: parseLsn(rows[0]!.lsn)!, at });
    } catch {
      // The primary is away: the replicas' lag is measured against its last known position.
    }
    const keepFrom = at - this.maxLagMs - 4 * POLL_MS;
    while (this.#samples.length > 1 && this.#samples[0]!.at < keepFrom) this.#samples.shift();
    await Promise.all(this.replicas.map((replica) => this.#pollReplica(replica)));
    this.#local.sweep();
  }

  async #pollReplica(replica: Replica): Promise<void> {
    try {
      const { rows } = await withTimeout(
        sql<{ recovery: boolean; replay: string | null }>`SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS replay`.execute(
          replica.database.db,
        ),
        POLL_TIMEOUT_MS,
      );
      const row = rows[0]!;
      replica.polledAt = Date.now();
      if (!row.recovery) {
        // Promoted, or not a replica at all: its history may part from the primary's.
        replica.state = 'not_in_recovery';
        replica.replay = null;
        replica.lagMs = null;
        return;
      }
      replica.replay = parseLsn(row.replay);
      replica.lagMs = replica.replay === null ? null : this.#lagOf(replica.replay, replica.polledAt);
      replica.state = replica.lagMs !== null && replica.lagMs <= this.maxLagMs ? 'ready' : 'lagging';
    } catch {
      replica.lost();
    }
  }

  /**
   * How far behind a replica that replayed up to `replay` is: now minus the last time the
   * primary was at or before that position; Infinity when it is behind every position kept.
   */
  #lagOf(replay: bigint, now: number): number | null {
    const newest = this.#samples.at(-1);
    if (!newest) return null;
    if (replay >= newest.lsn) return 0;
    const ahead = this.#samples.findIndex((s) => s.lsn > replay);
    if (ahead <= 0) return Number.POSITIVE_INFINITY;
    return now - this.#samples[ahead - 1]!.at;
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((r) => ({ name: r.name, state: r.state, lagMs: r.lagMs, reads: r.reads }));
  }

  primaryReads(): number {
    return this.#primaryReads;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#polling;
    await Promise.all(this.replicas.map((r) => r.database.close()));
  }
}

/** The router of this process: the primary alone without replica URLs. */
export async function openReplicas(options: ReplicaOptions): Promise<ReadRouter> {
  if (options.urls.length === 0) return primaryOnly(options.primary);
  const replicas: Replica[] = [];
  for (const url of options.urls) {
    // The pool connects on first use: a replica down at start does not stop the start.
    const database = await openDatabase({
      databaseUrl: withApplicationName(url),
      dataDir: null,
      poolMax: options.poolMax,
      prepareAfter: options.prepareAfter,
      wireSpeedUps: options.wireSpeedUps,
      bounds: { connectMs: options.connectTimeoutMs, statementMs: options.statementTimeoutMs },
    });
    replicas.push(new Replica(nameOf(url), database));
  }
  return new ReplicaRouter(options.primary, replicas, options.maxLagMs);
}

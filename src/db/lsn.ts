/**
 * WAL positions (LSNs) and the last write position of each API key, for the read replicas'
 * read-your-writes rule (src/db/replicas.ts).
 *
 * PostgreSQL writes an LSN as two hexadecimal halves, 'X/Y'. Compared as text they sort wrongly
 * ('0/10' < '0/9'), so they are read into a BigInt here and compared as numbers. Redis keeps them
 * as 16 hexadecimal digits, zero-padded: text of one width sorts as the numbers do, which lets
 * the Lua script below keep the larger of two without Lua's floating-point numbers (an LSN is
 * 64 bits; a double holds 53).
 */
import type { Redis } from 'ioredis';

/** 'X/Y' as a number; null stays null (a function of PostgreSQL's that has no position to give). */
export function parseLsn(text: string | null): bigint | null {
  if (text === null) return null;
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  if (!match) throw new Error(`not an LSN: "${text}"`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

/** MAXALIGNed sizes of a WAL page's header: the long one opens a segment, the short one every other page. */
const SHORT_PAGE_HEADER = 24n;
const LONG_PAGE_HEADER = 40n;

/**
 * The end of the last record written before `insert` (`pg_current_wal_insert_lsn()`). When the
 * last record ended exactly at a page's end, the insert position points past the next page's
 * header, where no record ends: a replica that replayed everything would stay 24 (or 40) bytes
 * short of it until the next write, and the key's reads would stay on the primary meanwhile.
 * `pg_last_wal_replay_lsn()` gives record ends, so the mark is taken as one too.
 */
export function lastRecordEnd(insert: bigint, blockSize: bigint, segmentSize: bigint): bigint {
  if (insert % segmentSize === LONG_PAGE_HEADER) return insert - LONG_PAGE_HEADER;
  if (insert % blockSize === SHORT_PAGE_HEADER && insert % segmentSize !== SHORT_PAGE_HEADER) return insert - SHORT_PAGE_HEADER;
  return insert;
}

const WIDTH = 16;
function toFixedHex(lsn: bigint): string {
  return lsn.toString(16).padStart(WIDTH, '0');
}

/** Where the keys' last write positions are kept; both forget a position after `ttlMs`. */
export interface WriteMarks {
  /** Keeps `lsn` for the key unless a larger one is kept already. */
  record(keyId: string, lsn: bigint): Promise<void>;
  /** The key's last write position; 0 when none is kept (or it was forgotten). */
  get(keyId: string): Promise<bigint>;
}

/** One process's marks: enough when a single API process serves the keys (or without Redis). */
export class MemoryWriteMarks implements WriteMarks {
  readonly #marks = new Map<string, { lsn: bigint; until: number }>();
  constructor(private readonly ttlMs: number) {}

  async record(keyId: string, lsn: bigint): Promise<void> {
    const kept = this.#marks.get(keyId);
    this.#marks.set(keyId, { lsn: kept && kept.lsn > lsn ? kept.lsn : lsn, until: Date.now() + this.ttlMs });
  }

  async get(keyId: string): Promise<bigint> {
    const kept = this.#marks.get(keyId);
    if (!kept) return 0n;
    if (kept.until < Date.now()) {
      this.#marks.delete(keyId);
      return 0n;
    }
    return kept.lsn;
  }

  /** Drops the forgotten marks (called by the replicas' poll). */
  sweep(): void {
    const now = Date.now();
    for (const [keyId, { until }] of this.#marks) if (until < now) this.#marks.delete(keyId);
  }
}

/** Keeps the larger of the stored position and ARGV[1] (same width: text order is number order), for ARGV[2] ms. */
const KEEP_LARGER = `
local kept = redis.call('GET', KEYS[1])
if (not kept) or kept < ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1`;

/**
 * Marks every API process sees (REDIS_URL): a key's next read may reach another process than the
 * one that took its write. The process's own marks are kept too, so that its own writes are
 * honoured even while Redis is down; a read that cannot ask Redis throws, and the router sends
 * it to the primary.
 */
export class SharedWriteMarks implements WriteMarks {
  constructor(
    private readonly redis: Redis,
    private readonly local: MemoryWriteMarks,
    private readonly ttlMs: number,
  ) {}

  async record(keyId: string, lsn: bigint): Promise<void> {
    await this.local.record(keyId, lsn);
    await this.redis.eval(KEEP_LARGER, 1, `dcm:wrote:${keyId}`, toFixedHex(lsn), String(this.ttlMs));
  }

  async get(keyId: string): Promise<bigint> {
    const [local, shared] = await Promise.all([this.local.get(keyId), this.redis.get(`dcm:wrote:${keyId}`)]);
    const lsn = shared === null ? 0n : BigInt(`0x${shared}`);
    return lsn > local ? lsn : local;
  }
}

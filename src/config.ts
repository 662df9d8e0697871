/**
 * Configuration from environment variables, parsed once at start.
 * A bad value stops the start with an error that names the variable.
 */
import { join } from 'node:path';
import { isSupportedCountry, type CountryCode } from 'libphonenumber-js';

export type ProcessRole = 'all' | 'api' | 'worker';

export interface Config {
  port: number;
  host: string;
  /** PostgreSQL connection string; when absent the embedded database (PGlite) is used. */
  databaseUrl: string | null;
  /**
   * PostgreSQL: a connection that keeps its session (the server itself, or a pooler in session
   * mode) for LISTEN and the migrations' lock, when DATABASE_URL goes through a pooler in
   * transaction mode; absent: DATABASE_URL.
   */
  databaseDirectUrl: string | null;
  /** Folder of the embedded database. */
  dataDir: string;
  dbPoolMax: number;
  /** PostgreSQL: runs of a statement marked prepared() before it is prepared (src/db/prepared-statements.ts); 0: never. */
  dbPrepareAfter: number;
  /** PostgreSQL: the wire-level speed-ups of src/db/pg-client.ts (DB_WIRE_SPEEDUPS, default on). */
  dbWireSpeedUps: boolean;
  /**
   * DATABASE_REPLICA_URLS: streaming replicas of DATABASE_URL, comma-separated, for the reads that
   * may lag a little (src/db/replicas.ts). Empty: every read on the primary.
   */
  databaseReplicaUrls: string[];
  /** REPLICA_MAX_LAG_MS (2000): a replica further behind than this is skipped until it catches up. */
  replicaMaxLagMs: number;
  /**
   * REPLICA_CONNECT_TIMEOUT_MS (1000) and REPLICA_STATEMENT_TIMEOUT_MS (3000): how long a read
   * waits for a replica's connection, and for each of its statements there, before it runs on the
   * primary instead and the replica is skipped until it answers its poll again (a replica that
   * accepts connections but never answers must not hang a read).
   */
  replicaConnectTimeoutMs: number;
  replicaStatementTimeoutMs: number;
  redisUrl: string | null;
  /** Bearer token of the back-office API (and /metrics); when absent the back office is not mounted at all. */
  adminToken: string | null;
  /**
   * A listener of its own for the back office and /metrics (ADMIN_PORT), so that a public load
   * balancer pointed at PORT never reaches them. null: served on PORT, behind the token.
   */
  adminPort: number | null;
  adminHost: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `json` (one JSON object a line, default) or `pretty` (readable, for a terminal). */
  logFormat: 'json' | 'pretty';
  defaultPhoneRegion: CountryCode;
  /** Creates the demo clinic on first start (npm start). */
  seedDemo: boolean;
  /** Development only: lets webhooks target http:// and loopback addresses. */
  webhookAllowInsecure: boolean;
  /** Multiplies every webhook retry wait (1 = the spec's schedule); tests set it small. */
  webhookRetryScale: number;
  /** How long a request may take to finish after SIGTERM before the process exits anyway. */
  shutdownGraceMs: number;
  bodyLimitBytes: number;
  trustProxy: boolean;
  /**
   * MCP_ALLOWED_ORIGINS (none): web pages' origins, comma-separated (https://app.example), that may
   * call /mcp besides PUBLIC_URL's (src/http/browser-origin.ts).
   */
  mcpAllowedOrigins: string[];
  connections: ConnectionsConfig;
  documents: DocumentsConfig;
  retention: RetentionConfig;
}

/**
 * How long the tables partitioned by month keep their rows (docs/operations.md, "Partitioned
 * tables"): a month's partition is dropped once the whole month is older than this.
 */
export interface RetentionConfig {
  /** ACCESS_LOG_RETENTION_DAYS (731: the 24 months health-record rules ask for access logs). */
  accessLogDays: number;
  /** EVENTS_RETENTION_DAYS (30, also the least: the API serves and replays 30 days of events). */
  eventsDays: number;
}

/** Slow and greedy clients: how long a request may take to arrive, how many sockets an address may hold. */
export interface ConnectionsConfig {
  /** HEADERS_TIMEOUT_MS: the request line and headers must have arrived within this (Node's `headersTimeout`). */
  headersTimeoutMs: number;
  /** REQUEST_TIMEOUT_MS: the whole request, body included, except an upload's body (Node's `requestTimeout`). */
  requestTimeoutMs: number;
  /** KEEP_ALIVE_TIMEOUT_MS: an idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** IDLE_TIMEOUT_MS: a connection with no byte either way for this long is closed (Node's socket timeout); 0: never. */
  idleTimeoutMs: number;
  /** MAX_CONNECTIONS_PER_ADDRESS: open connections per client address (the peer: behind a proxy, the proxy); 0: no cap. */
  maxPerAddress: number;
  /** UPLOAD_MIN_BYTES_PER_SECOND over every UPLOAD_RATE_WINDOW_MS: an upload link's body slower than this is cut off. */
  uploadMinBytesPerSecond: number;
  uploadRateWindowMs: number;
}

/** Documents: where the bytes go, how they are checked, how long they stay. */
export interface DocumentsConfig {
  /** `fs` (default): DOCUMENT_DIR; `s3`: any S3-compatible store (chosen when S3_ENDPOINT is set). */
  storage: 'fs' | 's3';
  /** Folder of the fs driver; default `<DATA_DIR>/documents`, inside the data folder. */
  dir: string;
  /** DOCUMENTS_ALLOW_IN_WORKTREE: lets `dir` be a folder of a git work tree that git does not ignore (storage/fs-folder.ts). */
  allowInWorktree: boolean;
  s3: { endpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string; forcePathStyle: boolean } | null;
  /** Largest document accepted (DOCUMENT_MAX_BYTES, default 25 MiB). */
  maxBytes: number;
  /** Days an archived document's bytes are kept before the purge job deletes them. */
  retentionDays: number;
  /** Lifetime of an upload link (15 minutes) and of a download link (5 minutes), in seconds. */
  uploadLinkSeconds: number;
  downloadLinkSeconds: number;
  /**
   * DOCUMENT_LINK_LEASE_SECONDS (15): how long a link's use outlives a process that stopped
   * mid-upload; the upload renews it every third of it (storage/links.ts `holdLink`).
   */
  linkLeaseSeconds: number;
  /** Origin of the fs driver's links (https://api.example.com); null: the origin the request came to. */
  publicUrl: string | null;
  /** `none` (default) or `clamd` at CLAMD_URL (tcp://host:3310). */
  scanner: { kind: 'none' } | { kind: 'clamd'; host: string; port: number; timeoutMs: number };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
  }
}

type Env = Record<string, string | undefined>;

function readInt(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function readNumber(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new ConfigError(name, `must be a number between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function readBool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

/** A comma-separated list of http(s) origins, each written as scheme://host[:port]. */
function readOrigins(env: Env, name: string): string[] {
  const entries = (env[name] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return entries.map((entry) => {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new ConfigError(name, `"${entry}" is not an origin such as https://app.example`);
    }
    if (!['http:', 'https:'].includes(url.protocol) || url.origin !== entry.replace(/\/+$/, '').toLowerCase())
      throw new ConfigError(name, `"${entry}" is not an origin such as https://app.example (scheme, host and port only)`);
    return url.origin;
  });
}

/** DATABASE_REPLICA_URLS: postgres URLs, comma-separated; only beside DATABASE_URL (the embedded database has no replicas). */
function readReplicaUrls(env: Env, databaseUrl: string | null): string[] {
  const name = 'DATABASE_REPLICA_URLS';
  const entries = (env[name] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) return [];
  if (databaseUrl === null)
    throw new ConfigError(
      name,
      'needs DATABASE_URL: the embedded database (PGlite) has no replicas; set DATABASE_URL to the primary they replicate, or unset DATABASE_REPLICA_URLS',
    );
  return entries.map((entry, i) => {
    const url = readUrl({ [name]: entry }, name, ['postgres:', 'postgresql:']);
    if (url === databaseUrl) throw new ConfigError(name, `entry ${i + 1} is DATABASE_URL itself: list the primary's replicas, not the primary`);
    return url!;
  });
}

function readUrl(env: Env, name: string, protocols: string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a valid URL');
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(name, `must start with ${protocols.map((p) => p + '//').join(' or ')}`);
  }
  return raw;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function loadConfig(env: Env = process.env): Config {
  const logLevel = (env.LOG_LEVEL || 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);

  const logFormat = (env.LOG_FORMAT || 'json') as Config['logFormat'];
  if (logFormat !== 'json' && logFormat !== 'pretty') throw new ConfigError('LOG_FORMAT', `must be json or pretty, got "${logFormat}"`);

  const region = (env.DEFAULT_PHONE_REGION || 'IT').toUpperCase();
  if (!isSupportedCountry(region)) throw new ConfigError('DEFAULT_PHONE_REGION', `is not a known country code: "${region}"`);

  const adminToken = env.ADMIN_TOKEN || null;
  if (adminToken !== null && adminToken.length < 16) {
    throw new ConfigError('ADMIN_TOKEN', 'must be at least 16 characters long');
  }

  const port = readInt(env, 'PORT', 3000, 0, 65535);
  const adminPort = env.ADMIN_PORT ? readInt(env, 'ADMIN_PORT', 0, 0, 65535) : null;
  if (adminPort !== null && adminToken === null) throw new ConfigError('ADMIN_PORT', 'needs ADMIN_TOKEN: without a token there is no back office to serve');
  if (adminPort !== null && port !== 0 && adminPort === port) throw new ConfigError('ADMIN_PORT', 'must differ from PORT');

  const databaseUrl = readUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);

  return {
    port,
    host: env.HOST || '127.0.0.1',
    databaseUrl,
    databaseDirectUrl: readUrl(env, 'DATABASE_DIRECT_URL', ['postgres:', 'postgresql:']),
    databaseReplicaUrls: readReplicaUrls(env, databaseUrl),
    replicaMaxLagMs: readInt(env, 'REPLICA_MAX_LAG_MS', 2000, 100, 3_600_000),
    replicaConnectTimeoutMs: readInt(env, 'REPLICA_CONNECT_TIMEOUT_MS', 1000, 50, 60_000),
    replicaStatementTimeoutMs: readInt(env, 'REPLICA_STATEMENT_TIMEOUT_MS', 3000, 50, 600_000),
    dataDir: env.DATA_DIR || './data',
    dbPoolMax: readInt(env, 'DB_POOL_MAX', 10, 2, 500),
    dbPrepareAfter: readInt(env, 'DB_PREPARE_AFTER', 1000, 0, 1_000_000_000),
    dbWireSpeedUps: readBool(env, 'DB_WIRE_SPEEDUPS', true),
    redisUrl: readUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    adminToken,
    adminPort,
    adminHost: env.ADMIN_HOST || '127.0.0.1',
    logLevel,
    logFormat,
    defaultPhoneRegion: region as CountryCode,
    seedDemo: readBool(env, 'SEED_DEMO', true),
    webhookAllowInsecure: readBool(env, 'WEBHOOK_ALLOW_INSECURE', false),
    webhookRetryScale: readNumber(env, 'WEBHOOK_RETRY_SCALE', 1, 0, 1),
    shutdownGraceMs: readInt(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    bodyLimitBytes: readInt(env, 'BODY_LIMIT_BYTES', 1_048_576, 1024, 64 * 1_048_576),
    trustProxy: readBool(env, 'TRUST_PROXY', false),
    mcpAllowedOrigins: readOrigins(env, 'MCP_ALLOWED_ORIGINS'),
    connections: {
      headersTimeoutMs: readInt(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
      requestTimeoutMs: readInt(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
      keepAliveTimeoutMs: readInt(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 3_600_000),
      idleTimeoutMs: readInt(env, 'IDLE_TIMEOUT_MS', 120_000, 0, 3_600_000),
      maxPerAddress: readInt(env, 'MAX_CONNECTIONS_PER_ADDRESS', 256, 0, 1_000_000),
      uploadMinBytesPerSecond: readInt(env, 'UPLOAD_MIN_BYTES_PER_SECOND', 1024, 1, 1_073_741_824),
      uploadRateWindowMs: readInt(env, 'UPLOAD_RATE_WINDOW_MS', 20_000, 100, 600_000),
    },
    documents: readDocumentsConfig(env, env.DATA_DIR || './data'),
    retention: {
      accessLogDays: readInt(env, 'ACCESS_LOG_RETENTION_DAYS', 731, 1, 36_500),
      eventsDays: readInt(env, 'EVENTS_RETENTION_DAYS', 30, 30, 36_500),
    },
  };
}

function readDocumentsConfig(env: Env, dataDir: string): DocumentsConfig {
  const endpoint = readUrl(env, 'S3_ENDPOINT', ['http:', 'https:']);
  let s3: DocumentsConfig['s3'] = null;
  if (endpoint !== null) {
    for (const name of ['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY']) {
      if (!env[name]) throw new ConfigError(name, 'is needed with S3_ENDPOINT');
    }
    s3 = {
      endpoint,
      bucket: env.S3_BUCKET!,
      region: env.S3_REGION || 'us-east-1',
      accessKeyId: env.S3_ACCESS_KEY_ID!,
      secretAccessKey: env.S3_SECRET_ACCESS_KEY!,
      forcePathStyle: readBool(env, 'S3_FORCE_PATH_STYLE', true),
    };
  }
  const clamd = readUrl(env, 'CLAMD_URL', ['tcp:']);
  let scanner: DocumentsConfig['scanner'] = { kind: 'none' };
  if (clamd !== null) {
    const url = new URL(clamd);
    scanner = { kind: 'clamd', host: url.hostname, port: Number(url.port || 3310), timeoutMs: readInt(env, 'CLAMD_TIMEOUT_MS', 30_000, 100, 600_000) };
  }
  return {
    storage: s3 ? 's3' : 'fs',
    dir: env.DOCUMENT_DIR || join(dataDir, 'documents'),
    allowInWorktree: readBool(env, 'DOCUMENTS_ALLOW_IN_WORKTREE', false),
    s3,
    maxBytes: readInt(env, 'DOCUMENT_MAX_BYTES', 25 * 1_048_576, 1, 5 * 1024 * 1_048_576),
    retentionDays: readInt(env, 'DOCUMENT_RETENTION_DAYS', 30, 0, 3650),
    uploadLinkSeconds: 15 * 60,
    downloadLinkSeconds: 5 * 60,
    linkLeaseSeconds: readInt(env, 'DOCUMENT_LINK_LEASE_SECONDS', 15, 1, 600),
    publicUrl: readUrl(env, 'PUBLIC_URL', ['http:', 'https:']),
    scanner,
  };
}

/** A configuration for tests and tools: defaults, overridden field by field. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({ LOG_LEVEL: 'silent', SEED_DEMO: 'false' }), ...overrides };
}

/**
 * A start-up failure as one line naming its cause and the variable to change: the database
 * refused or missing (DATABASE_URL), the port taken (PORT, ADMIN_PORT), the data folder not
 * writable (DATA_DIR). main.ts prints it and exits 1, without a stack: the stack of a refused
 * connection tells an operator nothing the line does not.
 */
import type { Config } from './config.js';

type Failure = Error & { code?: string; port?: number; address?: string; errors?: unknown[]; path?: string };

/** The system or PostgreSQL error code, looking inside an AggregateError (one per address tried) or a cause. */
function codeOf(error: Failure): string | undefined {
  if (error.code) return error.code;
  const inner = (error.errors?.[0] ?? error.cause) as Failure | undefined;
  return inner && typeof inner === 'object' ? codeOf(inner) : undefined;
}

function where(databaseUrl: string): { host: string; database: string } {
  try {
    const url = new URL(databaseUrl);
    return { host: `${url.hostname || 'localhost'}:${url.port || '5432'}`, database: decodeURIComponent(url.pathname.slice(1)) || url.username };
  } catch {
    return { host: '?', database: '?' };
  }
}

export function describeStartupError(error: unknown, config: Config): string | null {
  if (!(error instanceof Error)) return null;
  const e = error as Failure;
  const code = codeOf(e);
  if (config.databaseUrl) {
    const db = where(config.databaseUrl);
    if (code === 'ECONNREFUSED') return `DATABASE_URL: PostgreSQL at ${db.host} refused the connection: is it running, on that port?`;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `DATABASE_URL: the host of ${db.host} cannot be resolved`;
    if (code === 'ETIMEDOUT') return `DATABASE_URL: PostgreSQL at ${db.host} did not answer in time`;
    if (code === '3D000') return `DATABASE_URL: the database "${db.database}" does not exist on ${db.host}: create it (createdb ${db.database})`;
    if (code === '28P01' || code === '28000') return `DATABASE_URL: PostgreSQL at ${db.host} refused the user or the password`;
    if (code === '42501') return `DATABASE_URL: the user may not create tables in "${db.database}" (migrations need it)`;
  }
  if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    if (e.port === undefined && code === 'EACCES' && !config.databaseUrl) return `DATA_DIR: ${config.dataDir} cannot be written (${e.message})`;
    const variable = e.port !== undefined && config.adminPort !== null && e.port === config.adminPort && e.port !== config.port ? 'ADMIN_PORT' : 'PORT';
    if (code === 'EADDRINUSE') return `${variable}: port ${e.port} is in use by another process: stop it or choose another ${variable}`;
    if (code === 'EACCES') return `${variable}: port ${e.port} needs privileges this process does not have: choose one above 1023`;
    return `${variable === 'ADMIN_PORT' ? 'ADMIN_HOST' : 'HOST'}: ${e.address ?? '?'} is not an address of this machine`;
  }
  if (!config.databaseUrl && (code === 'EACCES' || code === 'EROFS' || code === 'ENOSPC')) return `DATA_DIR: ${config.dataDir} cannot be written (${code})`;
  return null;
}

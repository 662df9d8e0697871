/** What every CLI command shares: failing in one line, opening the database. */
import { createContext } from '../bootstrap.js';
import { ConfigError, loadConfig } from '../config.js';

/** One clear line on stderr and a non-zero exit. */
export function fail(message: string, code = 1): never {
  console.error(`error: ${message}`);
  process.exit(code);
}

/** One line for an API error: code, the wrong fields or the reason, and the message. */
export function describeApiError(code: string, message: string, details: Record<string, unknown> | null): string {
  const issues = (details?.issues as Array<{ path: string; message: string }> | undefined) ?? [];
  const detail = issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ');
  return `${code}${detail ? ` (${detail})` : details?.reason ? ` (${String(details.reason)})` : ''}: ${message}`;
}

export async function openContext() {
  let config;
  try {
    config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message, 2);
    throw error;
  }
  return createContext(config);
}

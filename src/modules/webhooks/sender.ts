/**
 * One HTTP attempt of a webhook (spec 6.1): POST, 10 s for the whole answer head, a 3xx is
 * a failure and never followed (undici 7's request follows no redirects), the receiver's
 * body is drained and discarded, never recorded. Only the status code, or the kind of
 * network error, and the duration come back.
 */
import net from 'node:net';
import { Agent, request } from 'undici';
import { isAllowedAddress, safeLookup, type AddressPolicy } from './address.js';

export const USER_AGENT = 'Service-Webhooks/1';
const TIMEOUT_MS = 10_000;

export interface SendResult {
  statusCode: number | null;
  /** Kind of network error when there was no HTTP answer. */
  error: string | null;
  durationMs: number;
  success: boolean;
}

export interface Sender {
  send(url: string, body: string, headers: Record<string, string>): Promise<SendResult>;
  close(): Promise<void>;
}

function errorKind(error: unknown): string {
  let e = error as { code?: string; name?: string; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 4; depth++) {
    const code = e.code ?? '';
    if (code === 'EADDRREFUSED_DCM') return 'address_refused';
    if (e.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') return 'timeout';
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') return 'dns_error';
    if (code === 'ECONNREFUSED') return 'connection_refused';
    if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'connection_reset';
    if (code.startsWith('ERR_TLS') || code.includes('CERT') || code.startsWith('ERR_SSL')) return 'tls_error';
    e = e.cause as typeof e;
  }
  return 'network_error';
}

export function createSender(policy: AddressPolicy, options: { connections?: number } = {}): Sender {
  const agent = new Agent({
    connect: { lookup: safeLookup(policy), timeout: TIMEOUT_MS },
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
    connections: options.connections ?? 16,
    keepAliveTimeout: 4_000,
  });
  return {
    async send(url, body, headers) {
      const started = performance.now();
      const done = (statusCode: number | null, error: string | null): SendResult => ({
        statusCode,
        error,
        durationMs: Math.round(performance.now() - started),
        success: statusCode !== null && statusCode >= 200 && statusCode < 300,
      });
      let host: string;
      try {
        host = new URL(url).hostname.replace(/^\[|\]$/g, '');
      } catch {
        return done(null, 'invalid_url');
      }
      // An IP literal never goes through `lookup`: check it here (rows written before a rule change).
      if (net.isIP(host) !== 0 && !isAllowedAddress(host, policy)) return done(null, 'address_refused');
      try {
        const res = await request(url, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...headers },
          body,
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        const result = done(res.statusCode, null);
        await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
        return result;
      } catch (error) {
        return done(null, errorKind(error));
      }
    },
    close: () => agent.close(),
  };
}

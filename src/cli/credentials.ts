/**
 * Secrets at the CLI's edges: ADMIN_TOKEN goes only where it cannot be read
 * on the way (https://, or plain http:// to this machine), and nothing the CLI prints carries a
 * credential (a URL's user name and password, its query values, a bearer token).
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** localhost, 127.0.0.0/8 or ::1 (a URL's hostname: IPv6 in brackets). */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIPv4(host)) return LOOPBACK.check(host, 'ipv4');
  if (isIPv6(host)) return LOOPBACK.check(host, 'ipv6');
  return false;
}

/** A URL to print: its user name and password, query values and fragment replaced by `***`. */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return redact(raw);
  }
  if (url.username || url.password) {
    url.username = '***';
    url.password = '';
  }
  for (const key of [...url.searchParams.keys()]) url.searchParams.set(key, '***');
  if (url.hash) url.hash = '***';
  return url.toString().replace(/%2A%2A%2A/g, '***');
}

/**
 * Text to print with its credentials blanked: userinfo of any URL, `Bearer …`, `token=…`-like
 * query values and the ADMIN_TOKEN of the environment wherever it appears.
 */
export function redact(text: string): string {
  let out = text
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/"'?#]+@/gi, '$1***@')
    .replace(/\b(bearer\s+)[^\s"']+/gi, '$1***')
    .replace(/([?&](?:[a-z_]*(?:token|key|secret|password|pass|auth|sig)[a-z_]*)=)[^&\s"'#]+/gi, '$1***');
  const token = process.env.ADMIN_TOKEN;
  if (token && token.length >= 8) out = out.split(token).join('***');
  return out;
}

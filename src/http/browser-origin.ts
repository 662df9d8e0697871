/**
 * Which web pages may call the MCP endpoint. MCP's streamable HTTP transport says a
 * server MUST check `Origin` against DNS rebinding: a page at `http://evil.example`, whose name a
 * rebinding DNS answer points at 127.0.0.1, must not reach a service listening there.
 *
 * A request without `Origin` was not sent by a web page (agent platforms, SDK clients, curl) and
 * passes: the bearer key is what admits it. A page's request passes when its origin is the
 * service's public origin (PUBLIC_URL) or one listed in MCP_ALLOWED_ORIGINS; a service without
 * PUBLIC_URL (one run on this machine, the embedded default) also admits loopback origins on any
 * port (`localhost`, `127.0.0.1`, `[::1]`: the MCP inspector's page, say). Anything else is refused.
 */

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `Origin` as a browser sends it (scheme://host[:port]), lower-cased; null when it is not one. */
function originOf(value: string): string | null {
  try {
    const url = new URL(value);
    return url.origin === 'null' ? null : url.origin.toLowerCase();
  } catch {
    return null;
  }
}

export function browserOriginAllowed(origin: string | undefined, publicUrl: string | null, allowed: readonly string[]): boolean {
  if (origin === undefined) return true;
  const asked = originOf(origin);
  if (asked === null) return false;
  if (publicUrl !== null && originOf(publicUrl) === asked) return true;
  if (allowed.some((entry) => originOf(entry) === asked)) return true;
  return publicUrl === null && LOOPBACK_HOSTS.has(new URL(asked).hostname);
}

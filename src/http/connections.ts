/**
 * Slow and greedy clients. A client that trickles its headers or body, or
 * opens hundreds of sockets, must not hold the server's connections:
 * - Node's own timers: `headersTimeout` (request line and headers), `requestTimeout` (the whole
 *   request, body included), `keepAliveTimeout` (idle between requests) and the socket's idle
 *   timeout (`connectionTimeout`: no byte either way). Node checks the first two every
 *   `connectionsCheckingInterval` (30 s by default, far too coarse for a 10 s limit), so the
 *   interval follows the shortest of them.
 * - A cap on the open connections of one client address, checked as each connection arrives.
 * - An upload link's body is the one body that may legitimately take minutes: its socket is
 *   exempt from `requestTimeout` while the upload runs, and a body-rate floor governs it instead
 *   (src/http/body-rate.ts).
 */
import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionsConfig } from '../config.js';

/** The Fastify options that set Node's HTTP timers. */
export function serverTimeouts(limits: ConnectionsConfig): {
  connectionTimeout: number;
  keepAliveTimeout: number;
  requestTimeout: number;
  http: ServerOptions;
} {
  const shortest = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // A timed-out request is noticed at most a tenth of its limit (and 1 s) late.
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(shortest / 10))),
    },
  };
}

/** Applies the same timers to a server Fastify did not create (the back office's own listener). */
export function applyTimeouts(server: Server, limits: ConnectionsConfig): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.setTimeout(limits.idleTimeoutMs);
}

const UPLOADING = Symbol('upload body in progress');
type Marked = Socket & { [UPLOADING]?: boolean };

/** While an upload's body streams on this socket, `requestTimeout` does not cut it (the body-rate floor does). */
export function exemptFromRequestTimeout(socket: Socket, exempt: boolean): void {
  (socket as Marked)[UPLOADING] = exempt;
}

export function isExemptFromRequestTimeout(socket: Socket): boolean {
  return (socket as Marked)[UPLOADING] === true;
}

/**
 * Refuses a connection beyond `max` open ones from the same address (`refuse`: a short `503`
 * envelope written at once and the socket destroyed), before a byte of its request is read (so no request
 * on it ever runs; a client that already sent one may see a reset instead of the 503). The
 * address is the peer's: behind a proxy, the proxy's (raise the cap or turn it off there, and
 * cap per client at the proxy).
 */
export function capConnectionsPerAddress(server: Server, max: number, refuse: (socket: Socket) => void): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = open.get(address) ?? 0;
    if (count >= max) {
      refuse(socket);
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

/**
 * The origin of the service's own links (documents' upload and download links). Never the
 * request's `Host` (or `X-Forwarded-Host`): a client that sends `Host: evil.example` must not
 * get, nor make the service hand another caller, a link to somewhere else.
 * PUBLIC_URL when set; otherwise the address this service listens on: HOST, or, when HOST is a
 * wildcard (0.0.0.0, ::), the local address the connection arrived at (an address of this
 * machine, whatever name the client used).
 */
import type { Socket } from 'node:net';

const WILDCARDS = new Set(['', '0.0.0.0', '::', '::0', '[::]']);

export function linkOrigin(publicUrl: string | null, listenHost: string, socket: Socket): string {
  if (publicUrl !== null) return publicUrl.replace(/\/+$/, '');
  const host = WILDCARDS.has(listenHost) ? (socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '') : listenHost;
  return `http://${host.includes(':') ? `[${host}]` : host}:${socket.localPort}`;
}

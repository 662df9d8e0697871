/**
 * A request Node's HTTP parser refuses (a URL or headers over 16 KB, broken HTTP) never
 * reaches Fastify: it is answered here with the error envelope, then the socket is closed.
 * So is a request that did not arrive in time (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS:
 * src/http/connections.ts), unless an answer was already on its way (a 401 sent before the
 * body it did not wait for): then the socket is just closed. Used by every listener (the API's
 * and the back office's).
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { ApiError } from '../core/errors.js';
import { errorEnvelope } from './errors.js';
import { isExemptFromRequestTimeout } from './connections.js';

const REASON_PHRASE: Record<number, string> = { 400: 'Bad Request', 503: 'Service Unavailable' };

/** A whole HTTP/1.1 answer with the error envelope, for a socket no request object owns. */
export function rawErrorAnswer(error: ApiError): string {
  const requestId = `req_${randomUUID()}`;
  const body = JSON.stringify(errorEnvelope(error, requestId));
  return (
    `HTTP/1.1 ${error.status} ${REASON_PHRASE[error.status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`
  );
}

/**
 * Writes a whole answer and closes the socket without reading further (a request parsed from
 * what the client sends next must never run): destroyed as soon as the answer left.
 */
export function answerAndClose(socket: Socket, answer: string): void {
  socket.on('error', () => undefined);
  socket.write(answer);
  if (socket.writableLength === 0) {
    socket.destroy();
    return;
  }
  socket.once('drain', () => socket.destroy());
  setTimeout(() => socket.destroy(), 1000).unref();
}

/** Node's own fields on a server socket: the last request parsed, the response being written. */
type Owned = Socket & { parser?: { incoming?: { complete: boolean } | null } | null; _httpMessage?: { headersSent?: boolean } | null };

/**
 * Whether nothing was written yet for the request that timed out on this socket. Its headers
 * not all in: nothing is, unless an earlier request's response is still going out (pipelined).
 * Its body not all in: its response may not have started, or may be sent already (a 401 before
 * the body it did not wait for: the response is then detached from the socket).
 */
function unanswered(socket: Owned): boolean {
  const incoming = socket.parser?.incoming;
  if (!incoming || incoming.complete) return !socket._httpMessage;
  return socket._httpMessage ? !socket._httpMessage.headersSent : false;
}

export function answerClientError(error: Error, socket: Socket): void {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    // An upload link's body is governed by its body-rate floor instead (src/http/body-rate.ts).
    if (isExemptFromRequestTimeout(socket)) return;
    if (socket.writable && unanswered(socket as Owned)) {
      const message = 'la richiesta (intestazioni e corpo) non è arrivata per intero entro il tempo concesso';
      answerAndClose(socket, rawErrorAnswer(ApiError.invalid('header', [{ path: '', message }])));
    } else socket.destroy();
    return;
  }
  if (code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
  const message = code === 'HPE_HEADER_OVERFLOW' ? 'indirizzo o intestazioni oltre il limite di 16 KB' : 'richiesta HTTP non valida';
  socket.end(rawErrorAnswer(ApiError.invalid('header', [{ path: '', message }])));
}

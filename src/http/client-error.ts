/**
 * A request Node's HTTP parser refuses (a URL or headers over 16 KB, broken HTTP) never
 * reaches Fastify: it is answered here with the error envelope, then the socket is closed.
 * Used by every listener (the API's and the back office's).
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { ApiError } from '../core/errors.js';
import { errorEnvelope } from './errors.js';

export function answerClientError(error: Error, socket: Socket): void {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
  const requestId = `req_${randomUUID()}`;
  const message = code === 'HPE_HEADER_OVERFLOW' ? 'indirizzo o intestazioni oltre il limite di 16 KB' : 'richiesta HTTP non valida';
  const body = JSON.stringify(errorEnvelope(ApiError.invalid('header', [{ path: '', message }]), requestId));
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The back office's own listener (ADMIN_HOST:ADMIN_PORT). It feeds the same app, so the
 * back office keeps one set of routes, schemas and OpenAPI document; requests that arrive
 * here are tagged, and the router's `listener` constraint (src/http/planes.ts) matches admin
 * routes only for them. On the public listener the back office does not exist.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { answerClientError } from './client-error.js';
import { tagAdminRequest } from './planes.js';
import type { ConnectionsConfig } from '../config.js';
import { applyTimeouts } from './connections.js';

export interface AdminListener {
  port: number;
  close(): Promise<void>;
}

export async function listenAdmin(app: FastifyInstance, host: string, port: number, limits?: ConnectionsConfig): Promise<AdminListener> {
  const server = http.createServer({ connectionsCheckingInterval: 1000 }, (req, res) => {
    tagAdminRequest(req);
    app.routing(req, res);
  });
  server.on('clientError', answerClientError);
  if (limits) applyTimeouts(server, limits);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

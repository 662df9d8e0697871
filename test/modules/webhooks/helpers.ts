import { verifyWebhook, WebhookVerificationError } from '../../../src/modules/webhooks/verify.js';
/** A real local webhook receiver (node:http on 127.0.0.1) and helpers to create events. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppContext } from '../../../src/context.js';
import type { EventType } from '../../../src/events/catalogue.js';
import { recordEvent, type NewEvent, type RecordedEvent } from '../../../src/events/record.js';
import { sampleData, type EventData } from '../../../src/event-schemas.js';
import { startDeliveryWorker } from '../../../src/modules/webhooks/worker/loop.js';
import type { OperationTypes } from '../../../packages/client/src/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { expect } from 'vitest';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  body: any;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Answer for the next requests to a path (default 200). */
  respond(path: string, answer: number | ((r: Received) => number | Promise<number>)): void;
  forPath(path: string): Received[];
  waitFor(predicate: (all: Received[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const answers = new Map<string, number | ((r: Received) => number | Promise<number>)>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = null;
      }
      const r: Received = { path: req.url ?? '/', headers: req.headers, raw, body, at: Date.now() };
      received.push(r);
      const answer = answers.get(r.path) ?? 200;
      const status = typeof answer === 'function' ? await answer(r) : answer;
      if (status >= 300 && status < 400) res.setHeader('location', 'http://127.0.0.1:1/elsewhere');
      res.statusCode = status;
      res.end('receiver body that must never be stored');
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    respond: (path, answer) => answers.set(path, answer),
    forPath: (path) => received.filter((r) => r.path === path),
    async waitFor(predicate, timeoutMs = 20_000) {
      const start = Date.now();
      while (!predicate(received)) {
        if (Date.now() - start > timeoutMs) throw new Error(`receiver: condition not met after ${timeoutMs} ms (${received.length} received)`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Records one event in its own transaction, as a module service would: `data` is the type's
 * sample (its documented example with fresh ids and this facility), with `data` overriding fields.
 */
export async function emit<T extends EventType>(
  ctx: AppContext,
  clinicId: string,
  type: T,
  facilityId: string | null = null,
  data: Partial<EventData<T>> = {},
): Promise<RecordedEvent> {
  const event = { clinicId, type, facilityId, data: { ...sampleData(type, facilityId), ...data } } as unknown as NewEvent;
  return ctx.db.transaction().execute((trx) => recordEvent(trx, event));
}

export async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() - start > timeoutMs) throw new Error(`until: condition not met after ${timeoutMs} ms: ${JSON.stringify(v)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The event types a destination may subscribe to, as the contract types them. */
export type WebhookEventTypes = OperationTypes['createWebhookEndpoint']['requestBody']['content']['application/json']['events'];

export interface WebhookRig {
  server: TestServer;
  receiver: Receiver;
  /** Creates a destination on the receiver, at `path`, for these event types. */
  endpoint(token: string, path: string, events: WebhookEventTypes): Promise<{ id: string; secret: string }>;
  close(): Promise<void>;
}

/** A test server that may deliver to loopback with fast retries, a receiver, and a running worker. */
export async function startWebhookRig(): Promise<WebhookRig> {
  const server = await startTestServer({ config: { webhookAllowInsecure: true, webhookRetryScale: 0.001 } });
  const receiver = await startReceiver();
  const worker = await startDeliveryWorker(server.ctx);
  return {
    server,
    receiver,
    async endpoint(token, path, events) {
      const { data, response } = await server.api(token).callWithResponse('createWebhookEndpoint', { body: { url: receiver.url + path, events } });
      expect(response.status).toBe(201);
      return data;
    },
    async close() {
      await worker.stop();
      await receiver.close();
      await server.close();
    },
  };
}

/** verifyWebhook (the one of src/modules/webhooks/verify.ts) as a result: `{ ok: true }` or `{ ok: false, reason }`. */
export function verified(
  raw: string | Uint8Array,
  headers: Parameters<typeof verifyWebhook>[1],
  secrets: readonly string[],
  options?: Parameters<typeof verifyWebhook>[3],
): { ok: true } | { ok: false; reason: string } {
  try {
    verifyWebhook(raw, headers, secrets, options);
    return { ok: true };
  } catch (error) {
    if (error instanceof WebhookVerificationError) return { ok: false, reason: error.reason };
    throw error;
  }
}

/**
 * Example: a webhook receiver (spec 6.5).
 *
 *   1. read the raw body bytes, before any JSON parsing;
 *   2. verify the signature with verifyWebhook (timestamp within 5 minutes, constant-time
 *      comparison, either of the current and previous secret during a rotation);
 *   3. answer 200 at once for a delivery already processed (same X-Service-Idempotency-Key:
 *      retries and redeliveries repeat it), otherwise process the event, remember the key, answer 200.
 * A bad signature answers 401 and the service retries later; answer 2xx within 10 seconds
 * (queue slow work) or the delivery counts as failed.
 *
 * Run: WEBHOOK_SECRET=whsec_… PORT=4000 npx tsx examples/webhook-receiver.ts
 */
import http from 'node:http';
import { verifyWebhook, WebhookVerificationError, type WebhookEnvelope } from '../packages/client/src/index.js';

/** Remembers processed deliveries. Use a table with a unique key in production (e.g. INSERT … ON CONFLICT DO NOTHING). */
export interface ProcessedStore {
  /** true when the key was new (and is now recorded), false when it was seen already. */
  claim(idempotencyKey: string): Promise<boolean>;
  /** Forget a claim whose processing failed, so the retry processes it. */
  release(idempotencyKey: string): Promise<void>;
}

export class MemoryProcessedStore implements ProcessedStore {
  private readonly seen = new Set<string>();
  async claim(key: string): Promise<boolean> {
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }
  async release(key: string): Promise<void> {
    this.seen.delete(key);
  }
}

export interface ReceiverOptions {
  /** Current secret, and the previous one while a rotation overlaps (or a function reading them from your configuration). */
  secrets: string[] | (() => string[]);
  onEvent: (event: WebhookEnvelope, idempotencyKey: string) => Promise<void> | void;
  store?: ProcessedStore;
  toleranceSeconds?: number;
  /** Largest body accepted (default 1 MiB). */
  maxBodyBytes?: number;
}

export interface ReceiverOutcome {
  status: number;
  outcome: 'processed' | 'duplicate' | 'rejected' | 'failed';
  reason?: string;
}

/** The framework-free core: raw body and headers in, HTTP status out. */
export async function receiveWebhook(
  rawBody: Buffer,
  headers: Record<string, string | string[] | undefined>,
  options: ReceiverOptions & { store: ProcessedStore },
): Promise<ReceiverOutcome> {
  let verified;
  try {
    verified = verifyWebhook(rawBody, headers, typeof options.secrets === 'function' ? options.secrets() : options.secrets, {
      toleranceSeconds: options.toleranceSeconds ?? 300,
    });
  } catch (error) {
    if (error instanceof WebhookVerificationError) return { status: 401, outcome: 'rejected', reason: error.reason };
    throw error;
  }
  if (!(await options.store.claim(verified.idempotencyKey))) return { status: 200, outcome: 'duplicate' };
  try {
    await options.onEvent(verified.event, verified.idempotencyKey);
    return { status: 200, outcome: 'processed' };
  } catch (error) {
    await options.store.release(verified.idempotencyKey);
    return { status: 500, outcome: 'failed', reason: error instanceof Error ? error.message : String(error) };
  }
}

export function createWebhookReceiver(options: ReceiverOptions): http.Server {
  const store = options.store ?? new MemoryProcessedStore();
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  return http.createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        res.writeHead(413).end();
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (res.writableEnded) return;
      receiveWebhook(Buffer.concat(chunks), req.headers, { ...options, store })
        .then((result) => {
          res.writeHead(result.status, { 'content-type': 'application/json' }).end(JSON.stringify(result));
        })
        .catch(() => res.writeHead(500).end());
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const secrets = [process.env.WEBHOOK_SECRET, process.env.WEBHOOK_PREVIOUS_SECRET].filter((s): s is string => !!s);
  const server = createWebhookReceiver({
    secrets,
    onEvent: (event, key) => console.log(`${event.type} ${event.eventId} (delivery ${key})`),
  });
  const port = Number(process.env.PORT ?? 4000);
  server.listen(port, () => console.log(`webhook receiver on http://127.0.0.1:${port}`));
}

/**
 * ClamAV's daemon over its INSTREAM protocol: `zINSTREAM\0`, then chunks each prefixed by
 * its length (4 bytes, big-endian), then a zero length; the reply is `stream: OK\0` or
 * `stream: <signature> FOUND\0`. Anything else (no connection, a timeout, an error reply such
 * as `INSTREAM size limit exceeded`) is ScannerUnavailableError: never a clean result.
 */
import { connect } from 'node:net';
import type { Readable } from 'node:stream';
import { ScannerUnavailableError, type Scanner, type ScanOutcome } from './scanner.js';

export class ClamdScanner implements Scanner {
  readonly kind = 'clamd' as const;

  constructor(private readonly options: { host: string; port: number; timeoutMs: number }) {}

  scan(bytes: Readable): Promise<ScanOutcome> {
    return new Promise<ScanOutcome>((resolve, reject) => {
      const socket = connect({ host: this.options.host, port: this.options.port });
      let reply = '';
      let settled = false;
      const fail = (why: string) => {
        if (settled) return;
        settled = true;
        socket.destroy();
        bytes.destroy();
        reject(new ScannerUnavailableError(`clamd: ${why}`));
      };
      socket.setTimeout(this.options.timeoutMs, () => fail('timeout'));
      socket.on('error', (error) => fail(error.message));
      socket.on('data', (data) => {
        reply += data.toString('utf8');
      });
      socket.on('close', () => {
        if (settled) return;
        const text = reply.replace(/\0$/, '').trim();
        const found = /^stream: (.+) FOUND$/.exec(text);
        if (found) {
          settled = true;
          resolve({ infected: true, signature: found[1]! });
        } else if (text === 'stream: OK') {
          settled = true;
          resolve({ infected: false });
        } else fail(`unexpected reply "${text.slice(0, 200)}"`);
      });
      socket.on('connect', async () => {
        try {
          socket.write('zINSTREAM\0');
          for await (const chunk of bytes) {
            const data = chunk as Buffer;
            const size = Buffer.alloc(4);
            size.writeUInt32BE(data.length);
            socket.write(size);
            // Backpressure: wait for the socket when its buffer is full (25 MiB stays out of memory).
            if (!socket.write(data)) await new Promise((r) => socket.once('drain', r));
            if (settled) return;
          }
          socket.end(Buffer.alloc(4));
        } catch (error) {
          fail((error as Error).message);
        }
      });
    });
  }
}

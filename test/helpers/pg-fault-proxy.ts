/**
 * A TCP proxy between the service and PostgreSQL that forwards every byte both ways and, when
 * armed, cuts one connection around a COMMIT: the first COMMIT sent on a connection whose
 * transaction carried `marker` (a parameter's or a statement's text) is either forwarded and then
 * both sockets are destroyed (PostgreSQL commits, its answer never arrives), or the sockets are
 * destroyed just before it (PostgreSQL sees the session end and rolls back). A real fault, not a
 * mock: the service's `pg` sees its connection end mid-COMMIT as it would on a network cut.
 *
 * It reads the protocol's message framing only (v3: the startup packet without a type byte, then
 * a type byte and a 32-bit length), and recognizes COMMIT as a simple query (`Q`) or as the text
 * of an extended-protocol Parse (`P`), the two ways the service's client sends it.
 */
import net from 'node:net';

export type Cut = 'after_commit' | 'before_commit';

interface Armed {
  cut: Cut;
  marker: Buffer;
  done: () => void;
}

/** SSLRequest and GSSENCRequest: untyped like the startup packet, and followed by it. */
const NEGOTIATIONS = new Set([80877103, 80877104]);

function isCommit(message: Buffer): boolean {
  const type = String.fromCharCode(message[0]!);
  if (type !== 'Q' && type !== 'P') return false;
  const body = message.subarray(5, message.length);
  // Parse: the statement's name (a C string), then its text; Query: the text.
  const text = type === 'Q' ? body : body.subarray(body.indexOf(0) + 1);
  const end = text.indexOf(0);
  return /^\s*commit\s*;?\s*$/i.test(text.subarray(0, end < 0 ? text.length : end).toString('utf8'));
}

export class PgFaultProxy {
  readonly #server: net.Server;
  readonly #sockets = new Set<net.Socket>();
  #armed: Armed | null = null;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {
    this.#server = net.createServer((client) => this.#forward(client));
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return (this.#server.address() as net.AddressInfo).port;
  }

  /** Cuts the next COMMIT of a transaction that carried `marker`; resolves once it is cut. */
  arm(cut: Cut, marker: string): Promise<void> {
    return new Promise((done) => (this.#armed = { cut, marker: Buffer.from(marker, 'utf8'), done }));
  }

  #forward(client: net.Socket): void {
    const server = net.connect(this.targetPort, this.targetHost);
    for (const socket of [client, server]) {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
      socket.on('error', () => {});
    }
    const cutBoth = () => {
      client.destroy();
      server.destroy();
    };
    client.on('close', () => server.destroy());
    server.on('close', () => client.destroy());
    // Once the cut is decided nothing more reaches the service: the COMMIT's answer is lost.
    let cutting = false;
    server.on('data', (chunk) => {
      if (!cutting) client.write(chunk);
    });

    let pending = Buffer.alloc(0);
    let started = false;
    let carried = false;
    client.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      const messages: Buffer[] = [];
      for (;;) {
        const typed = started ? 1 : 0;
        if (pending.length < typed + 4) break;
        const length = typed + pending.readInt32BE(typed);
        if (pending.length < length) break;
        const message = pending.subarray(0, length);
        if (!started && !NEGOTIATIONS.has(message.readInt32BE(4))) started = true;
        messages.push(message);
        pending = pending.subarray(length);
      }
      const armed = this.#armed;
      const sent: Buffer[] = [];
      for (const [i, message] of messages.entries()) {
        if (armed && message.includes(armed.marker)) carried = true;
        if (armed && carried && isCommit(message)) {
          this.#armed = null;
          cutting = true;
          // After: COMMIT and whatever came with it (its Sync), written, then both ends closed.
          const forwarded = armed.cut === 'after_commit' ? [...sent, ...messages.slice(i)] : sent;
          server.write(Buffer.concat(forwarded), () => {
            cutBoth();
            armed.done();
          });
          return;
        }
        sent.push(message);
      }
      if (sent.length > 0) server.write(Buffer.concat(sent));
    });
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

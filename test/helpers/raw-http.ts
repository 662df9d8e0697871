/** Raw HTTP/1.1 requests for hostile-input tests: what a client library would never send. */
import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON, or the text when it is not JSON. */
  body: any;
  text: string;
}

/**
 * One request written byte for byte on its own connection: the request target as given (any
 * spelling: percent-encoded, absolute form...), headers as given (repeated ones, any letter
 * case; a `Host` among them replaces ours), then `Content-Length` when there is a body.
 * What fetch cannot send.
 */
export function sendRaw(baseUrl: string, method: string, path: string, headers: Array<[string, string]>, body?: Buffer | string): Promise<RawAnswer> {
  const { port } = new URL(baseUrl);
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body as never);
  const host: Array<[string, string]> = headers.some(([k]) => k.toLowerCase() === 'host') ? [] : [['Host', `127.0.0.1:${port}`]];
  const head = [`${method} ${path} HTTP/1.1`, 'Connection: close', ...[...host, ...headers].map(([k, v]) => `${k}: ${v}`)];
  if (body !== undefined) head.push(`Content-Length: ${payload.length}`);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [headText, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = headText!.split('\r\n');
      const answerHeaders: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(':');
        answerHeaders[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
      }
      const bodyText = rest.join('\r\n\r\n');
      let parsed: unknown = bodyText;
      try {
        parsed = JSON.parse(bodyText);
      } catch {
        // chunked or not JSON: keep the text
      }
      resolve({ status: Number(statusLine!.split(' ')[1]), headers: answerHeaders, body: parsed, text: bodyText });
    });
    // Not end(): a half-closed connection may be closed by the server before it answers.
    socket.write(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), payload]));
  });
}

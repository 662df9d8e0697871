// A loopback reverse proxy that adds `Authorization: Bearer <key>` to every request: for clients
// we did not write that cannot send a header of their own (the MCP conformance runner).
// Test harness only, never part of the service. Everything else passes through unchanged, the
// Host and Origin headers included, so the service judges them as it would the client's own.
// Usage: node scripts/bearer-proxy.mjs <listen port> <target origin> <key>
import http from 'node:http';

const [port, target, key] = process.argv.slice(2);
if (!port || !target || !key) {
  console.error('usage: node scripts/bearer-proxy.mjs <listen port> <target origin> <key>');
  process.exit(2);
}
const upstream = new URL(target);

const server = http.createServer((request, response) => {
  const forwarded = http.request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: request.method,
      path: request.url,
      headers: { ...request.headers, authorization: `Bearer ${key}` },
    },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    },
  );
  forwarded.on('error', (error) => {
    response.writeHead(502, { 'content-type': 'text/plain' });
    response.end(`bearer-proxy: ${error.message}`);
  });
  request.pipe(forwarded);
});
server.listen(Number(port), '127.0.0.1', () => console.log(`bearer-proxy: 127.0.0.1:${port} -> ${upstream.origin}`));

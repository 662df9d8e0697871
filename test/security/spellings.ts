/**
 * Spellings of a request line that a gate keyed on the raw URL would get wrong:
 * each takes a real path (`/admin/v1/clinics/<id>`) and returns request targets and headers
 * that name the same route to a naive reader, or almost. Shared by the route walk
 * (spellings.test.ts) and the request-line fuzz (test/proof/fuzz-request-line.test.ts).
 */
import { sendRaw, type RawAnswer } from '../helpers/raw-http.js';

interface Spelling {
  /** The class it belongs to, for the closing note and failure messages. */
  kind: string;
  /** The request target, sent as is on the request line. */
  target: string;
  headers?: Record<string, string>;
}

const pct = (c: string) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
const PCT = (c: string) => pct(c).toUpperCase();

/** `/admin/v1/clinics` -> segments without the leading slash. */
function segments(path: string): string[] {
  return path.split('/').slice(1);
}

function mapFirstLetter(path: string, f: (c: string) => string): string {
  return path.replace(/[a-z]/i, (c) => f(c));
}

export function spellingsOf(path: string, port: number): Spelling[] {
  const [first = '', ...rest] = segments(path);
  const tail = rest.join('/');
  const out: Spelling[] = [
    // percent-encoded letters and digits, lower and upper hex, one or all
    { kind: 'percent-encoded letter', target: mapFirstLetter(path, pct) },
    { kind: 'percent-encoded letter', target: mapFirstLetter(path, PCT) },
    { kind: 'percent-encoded segment', target: `/${[...first].map(pct).join('')}/${tail}` },
    { kind: 'percent-encoded version', target: path.replace('/v1', '/%76%31') },
    { kind: 'percent-encoded path', target: [...path].map((c) => (c === '/' ? c : pct(c))).join('') },
    // dot segments, plain and encoded
    { kind: 'dot segment', target: `/./${first}/${tail}` },
    { kind: 'dot segment', target: `/x/../${first}/${tail}` },
    { kind: 'dot segment', target: `/${first}/./${tail}` },
    { kind: 'dot segment', target: `/${first}/x/../${tail}` },
    { kind: 'encoded dot segment', target: `/%2e/${first}/${tail}` },
    { kind: 'encoded dot segment', target: `/x/%2e%2e/${first}/${tail}` },
    { kind: 'encoded dot segment', target: `/x/%2E%2E/${first}/${tail}` },
    { kind: 'dot segment reaching above the root', target: `/../${first}/${tail}` },
    // double slashes
    { kind: 'double slash', target: `/${path}` },
    { kind: 'double slash', target: `/${first}//${tail}` },
    { kind: 'double slash', target: path.replace(/\/([^/]*)$/, '//$1') },
    // letter case
    { kind: 'letter case', target: path.toUpperCase() },
    { kind: 'letter case', target: `/${first.toUpperCase()}/${tail}` },
    { kind: 'letter case', target: path.replace('/v1', '/V1') },
    // trailing characters
    { kind: 'trailing slash', target: `${path}/` },
    { kind: 'trailing character', target: `${path}.json` },
    { kind: 'trailing character', target: `${path}%20` },
    { kind: 'trailing character', target: `${path}%09` },
    { kind: 'trailing character', target: `${path}%00` },
    { kind: 'trailing character', target: `${path}?` },
    { kind: 'trailing character', target: `${path}#x` },
    { kind: 'trailing character', target: `${path}~` },
    // `;` parameters
    { kind: 'semicolon parameter', target: `/${first};x=1/${tail}` },
    { kind: 'semicolon parameter', target: `${path};` },
    { kind: 'semicolon parameter', target: `${path};jsessionid=1` },
    // encoded slashes and backslashes
    { kind: 'encoded slash', target: `/${first}%2f${tail}` },
    { kind: 'encoded slash', target: `/${first}%2F${tail}` },
    { kind: 'encoded slash', target: `%2f${first}/${tail}` },
    { kind: 'backslash', target: `/${first}\\${tail}` },
    { kind: 'backslash', target: `\\${first}/${tail}` },
    { kind: 'encoded backslash', target: `/${first}%5c${tail}` },
    // overlong UTF-8 and look-alikes
    { kind: 'overlong UTF-8 slash', target: `/${first}%c0%af${tail}` },
    { kind: 'overlong UTF-8 slash', target: `/${first}%e0%80%af${tail}` },
    { kind: 'overlong UTF-8 letter', target: mapFirstLetter(path, (c) => `%c1%${(0x80 + (c.charCodeAt(0) & 0x3f)).toString(16)}`) },
    { kind: 'fullwidth letter', target: mapFirstLetter(path, (c) => encodeURIComponent(String.fromCharCode(c.charCodeAt(0) - 0x20 + 0xff00))) },
    { kind: 'invalid percent escape', target: `${path}%` },
    { kind: 'invalid percent escape', target: `/%zz${path}` },
    // absolute form and Host games
    { kind: 'absolute form', target: `http://127.0.0.1:${port}${path}` },
    { kind: 'absolute form', target: `http://evil.example${path}` },
    { kind: 'absolute form', target: `https://127.0.0.1${path}` },
    { kind: 'absolute form', target: `HTTP://127.0.0.1:${port}/${path}` },
    { kind: 'absolute form with user info', target: `http://u:p@127.0.0.1:${port}${path}` },
    { kind: 'asterisk form', target: '*' },
    { kind: 'Host header', target: path, headers: { host: 'localhost' } },
    { kind: 'Host header', target: path, headers: { host: `127.0.0.1:${port}/admin` } },
    { kind: 'forwarding header', target: path, headers: { 'x-forwarded-host': 'internal', 'x-forwarded-for': '127.0.0.1', 'x-real-ip': '127.0.0.1' } },
    { kind: 'rewrite header', target: '/nothing-here', headers: { 'x-original-url': path, 'x-rewrite-url': path } },
    { kind: 'method override header', target: path, headers: { 'x-http-method-override': 'GET', 'x-method-override': 'GET' } },
  ];
  return out;
}

/**
 * Sends one request line as written, on a port of this machine: a body-carrying method gets
 * `{}` as JSON, so that only the gate, never a missing body, can refuse it.
 */
export function sendLine(port: number, method: string, target: string, headers: Record<string, string> | Array<[string, string]> = {}): Promise<RawAnswer> {
  const list = Array.isArray(headers) ? headers : Object.entries(headers);
  const withBody = ['POST', 'PATCH', 'PUT', 'DELETE'].includes(method);
  return sendRaw(`http://127.0.0.1:${port}`, method, target, withBody ? [...list, ['content-type', 'application/json']] : list, withBody ? '{}' : undefined);
}

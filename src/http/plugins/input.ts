/**
 * Input the router and the schemas cannot judge, refused with 400 invalid_request before any
 * handler runs (test/http/hostile-input.test.ts and the fuzz findings of test/proof/fuzz.test.ts):
 * - a header that decides what a request means sent twice (Node would keep the first
 *   `Authorization` or `Content-Type` and join two `Idempotency-Key`s with ", ");
 * - a JSON body that is not UTF-8, nests deeper than any real body, or holds a lone UTF-16
 *   surrogate (`"\ud800"`) that no database or receiver can store or send as UTF-8;
 * - U+0000 anywhere (PostgreSQL text cannot hold it).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';

declare global {
  interface String {
    /** ES2024, in Node since 20; the project's TypeScript lib is ES2022. */
    isWellFormed(): boolean;
  }
}

/**
 * Headers read as one value, by the name `details.issues` gives them. Not here: `If-Match` is a
 * list by RFC 9110 (two lines are one list, which is never one of our ETags: 409), and a
 * repeated `X-Request-Id` is joined by Node into a value that is not a safe token, so the
 * request gets an id of ours. Node's parser refuses a repeated `Content-Length` itself
 * (app.ts answers it with the envelope). Node keeps the first of two `Host` lines: which one a
 * proxy in front would have read is anyone's guess, so the request is refused.
 */
const SINGLE_HEADERS = ['Authorization', 'Idempotency-Key', 'Content-Type', 'Host'];

/** The single-valued header of each name length (theirs differ), to test a raw name at one array read. */
const SINGLE_BY_LENGTH: Array<{ name: string; lower: string; pattern: RegExp; bit: number } | undefined> = [];
SINGLE_HEADERS.forEach((name, i) => {
  if (SINGLE_BY_LENGTH[name.length]) throw new Error(`${name}: two single-valued headers of one length`);
  SINGLE_BY_LENGTH[name.length] = { name, lower: name.toLowerCase(), pattern: new RegExp(`^${name}$`, 'i'), bit: 1 << i };
});

/** The body as it arrived, for the routes that verify a signature over it (`config.keepRawBody`). */
const RAW_BODIES = new WeakMap<FastifyRequest, string>();

export function rawBodyOf(request: FastifyRequest): string | undefined {
  return RAW_BODIES.get(request);
}

/**
 * The first of SINGLE_HEADERS sent more than once, or null. On every request, so one pass
 * over the raw names (Node drops a repeated `Authorization` from `headers`) allocating
 * nothing: a name is looked up by its length, then compared as clients spell it (lower case,
 * or capitalised), then in any letter case.
 */
function repeatedHeader(rawHeaders: string[]): string | null {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    const single = SINGLE_BY_LENGTH[name.length];
    if (single === undefined || (name !== single.lower && name !== single.name && !single.pattern.test(name))) continue;
    if (seen & single.bit) return single.name;
    seen |= single.bit;
  }
  return null;
}

const MAX_JSON_DEPTH = 64;

/** Whether objects and arrays in a JSON text nest deeper than `max` (strings skipped; one pass). */
function jsonDepthOver(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Why a string (or key) cannot be accepted, or null. */
function stringProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'contiene il carattere NUL (U+0000), non ammesso';
  if (!value.isWellFormed()) return 'contiene un surrogato UTF-16 isolato (\\uD800-\\uDFFF), non ammesso';
  return null;
}

/**
 * The first string (or key) of a parsed input that cannot be accepted: its path (keys and
 * indexes) and why. Bodies are at most 64 deep. The path is built only for a finding: this
 * walk runs on every request with a body.
 */
function badString(value: unknown): { path: string[]; message: string } | null {
  if (typeof value === 'string') {
    const message = stringProblem(value);
    return message === null ? null : { path: [], message };
  }
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = badString(value[i]);
      if (found !== null) {
        found.path.unshift(String(i));
        return found;
      }
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    const message = stringProblem(key);
    if (message !== null) return { path: [key], message };
    const found = badString((value as Record<string, unknown>)[key]);
    if (found !== null) {
      found.path.unshift(key);
      return found;
    }
  }
  return null;
}

/** Strict UTF-8 (a malformed sequence throws instead of becoming U+FFFD); a leading BOM is dropped. Stateless, so shared. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function registerInputChecks(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const repeated = repeatedHeader(request.raw.rawHeaders);
    if (repeated !== null) throw ApiError.invalid('header', [{ path: repeated, message: 'intestazione ripetuta: va inviata una volta sola' }]);
  });

  // Only JSON bodies: anything else is refused with a clear 400, not parsed as text.
  app.removeContentTypeParser(['text/plain']);
  // The body arrives as bytes and is decoded strictly: Node's string decoding would store
  // invalid UTF-8 as U+FFFD. JSON nested deeper than any real body is refused before parsing:
  // the idempotency hash, JSON.stringify and every recursive walk would overflow the stack on
  // it. Fastify's own parser (with its prototype-poisoning checks) does the rest.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      done(ApiError.invalid('body', [{ path: '', message: 'il corpo non è testo UTF-8 valido' }]), undefined);
      return;
    }
    if (jsonDepthOver(text, MAX_JSON_DEPTH)) {
      done(ApiError.invalid('body', [{ path: '', message: `il JSON è annidato oltre ${MAX_JSON_DEPTH} livelli` }]), undefined);
      return;
    }
    if ((request.routeOptions.config as { keepRawBody?: boolean } | undefined)?.keepRawBody) RAW_BODIES.set(request, text);
    parseJson(request, text, done);
  });

  // Strings are checked once parsed, so a `\ud800` escape is caught with the field it is in.
  app.addHook('preValidation', async (request) => {
    for (const [part, value] of [
      ['path', request.params],
      ['query', request.query],
      ['body', request.body],
    ] as const) {
      const bad = badString(value);
      if (bad !== null) throw ApiError.invalid(part, [{ path: bad.path.join('.'), message: bad.message }]);
    }
  });
}

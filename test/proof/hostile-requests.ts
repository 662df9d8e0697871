/**
 * Hostile requests generated from an OpenAPI 3.1 document with fast-check.
 *
 * For one operation, a request is built from its declared path, query, header and body
 * schemas: each part is either plausible (valid per the schema, so the request reaches the
 * handler), mutated (one field type-confused, oversized, missing, or an unknown one added)
 * or hostile outright (raw bytes, invalid UTF-8, deeply nested JSON, huge numbers, unicode
 * edge cases, wrong Content-Type). Nothing here knows any route: routes merged later are
 * covered because they appear in the document.
 */
import fc from 'fast-check';

export type Schema = Record<string, any>;
export type OpenApiDoc = Record<string, any>;

export interface Operation {
  method: string;
  /** As in the document, relative to the server (e.g. `/facilities/{id}`). */
  path: string;
  operationId: string;
  parameters: { name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: Schema }[];
  body: Schema | null;
}

export interface HostileRequest {
  method: string;
  /** Path and query, already encoded as bytes would be on the wire. */
  url: string;
  /** A list is sent as that many header lines. */
  headers: Record<string, string | string[]>;
  body: Buffer | null;
  /** What kind of request this is, for failure reports. */
  label: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function resolveRef(doc: OpenApiDoc, schema: Schema | undefined): Schema {
  let s = schema ?? {};
  for (let i = 0; i < 20 && typeof s.$ref === 'string'; i++) {
    const ref: string = s.$ref;
    if (ref.startsWith('#/')) {
      s =
        ref
          .slice(2)
          .split('/')
          .reduce((node: any, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc) ?? {};
    } else {
      const name = ref.replace(/#$/, '');
      s = doc.components?.schemas?.[name] ?? {};
    }
  }
  return s;
}

export function operationsOf(doc: OpenApiDoc): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: any) => {
        const param = resolveRef(doc, p);
        return { name: param.name, in: param.in, required: !!param.required, schema: resolveRef(doc, param.schema) };
      });
      const content = op.requestBody ? (resolveRef(doc, op.requestBody).content ?? {}) : null;
      const body = content ? resolveRef(doc, (content['application/json'] ?? Object.values(content)[0] ?? {}).schema) : null;
      ops.push({ method: method.toUpperCase(), path, operationId: op.operationId ?? `${method} ${path}`, parameters, body });
    }
  }
  return ops;
}

// ---------------------------------------------------------------------------------------
// Values

/** Strings people and attackers type: unicode edges, control characters, injections. */
const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  '\ud83d\ude00',
  '\u202e\u0041\u0042',
  '\ufeff',
  '\uffff',
  'e\u0301\u0301\u0301',
  'ß'.repeat(50),
  'İ',
  '𝕏'.repeat(30),
  "'; DROP TABLE patients; --",
  '" OR 1=1 --',
  '%00',
  '%',
  '%ff',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '${7*7}',
  '{{7*7}}',
  '\\',
  '\r\n',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  '1e999999',
  '0x10',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '2026-02-30T10:00:00Z',
  '2026-13-01',
  '9999-12-31T23:59:59.999999999+23:59',
  '-271821-04-20T00:00:00Z',
  '__proto__',
  'constructor',
  'a'.repeat(256),
  'x'.repeat(5001),
];

const HUGE_NUMBERS = [
  0,
  -0,
  -1,
  1.5,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53 + 1,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  1e21,
  100000000.01,
];

const nastyString = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.integer({ min: 200, max: 20_000 }).map((n) => 'é'.repeat(n)),
);

/** Any JSON value, of any type, some of them hostile. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  nastyString,
  fc.constantFrom(...HUGE_NUMBERS),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(nastyString, { maxLength: 5 }),
  fc.integer({ min: 50, max: 300 }).map((n) => nest(n, 'x')),
  fc.integer({ min: 101, max: 2000 }).map((n) => Array.from({ length: n }, (_, i) => `item ${i}`)),
);

function nest(depth: number, leaf: unknown): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

function typeOf(schema: Schema): string | undefined {
  const t = schema.type;
  if (Array.isArray(t)) return t.find((x) => x !== 'null');
  return t;
}

/** A value the schema accepts (as far as a generator can tell; formats and bounds honoured). */
function validValue(doc: OpenApiDoc, raw: Schema, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolveRef(doc, raw);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) return fc.oneof(...alternatives.map((s: Schema) => validValue(doc, s, depth + 1)));
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0)
    return validValue(doc, Object.assign({}, ...schema.allOf.map((s: Schema) => resolveRef(doc, s))), depth + 1);
  const nullable = Array.isArray(schema.type) && schema.type.includes('null');
  const base = validNonNull(doc, schema, depth);
  return nullable ? fc.option(base, { nil: null, freq: 5 }) : base;
}

function validNonNull(doc: OpenApiDoc, schema: Schema, depth: number): fc.Arbitrary<unknown> {
  switch (typeOf(schema)) {
    case 'string':
      return validString(schema);
    case 'integer': {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1000);
      const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : Math.max(min, 1000) + 1000);
      return fc.integer({ min: Math.max(min, Number.MIN_SAFE_INTEGER), max: Math.min(max, Number.MAX_SAFE_INTEGER) });
    }
    case 'number': {
      const min = schema.minimum ?? -1e6;
      const max = schema.maximum ?? 1e6;
      return fc
        .double({ min, max, noNaN: true, noDefaultInfinity: true })
        .map((n) => Math.round(n * 100) / 100)
        .filter((n) => n >= min && n <= max);
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = schema.items ? validValue(doc, schema.items, depth + 1) : fc.jsonValue({ maxDepth: 1 });
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 4, minLength + 4));
      return fc
        .array(items, { minLength, maxLength, ...(schema.uniqueItems ? {} : {}) })
        .map((a) => (schema.uniqueItems ? [...new Map(a.map((v) => [JSON.stringify(v), v])).values()] : a))
        .filter((a) => a.length >= minLength);
    }
    case 'object': {
      if (depth > 6) return fc.constant({});
      const props: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, s] of Object.entries<Schema>(schema.properties ?? {})) props[name] = validValue(doc, s, depth + 1);
      const required: string[] = (schema.required ?? []).filter((r: string) => r in props);
      return fc.record(props, { requiredKeys: required });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function validString(schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  // A pattern bounds its own length (`^[0-9a-f]{64}$`): a default cap below it would leave the filter nothing to keep.
  const maxLength = schema.maxLength ?? (schema.pattern ? Number.MAX_SAFE_INTEGER : 60);
  const fit = (a: fc.Arbitrary<string>) => a.filter((s) => s.length >= minLength && s.length <= maxLength);
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'date-time':
      return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'date':
      return fc
        .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10));
    case 'email':
      return fit(
        fc
          .tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,15}$/), fc.stringMatching(/^[a-z]{1,10}$/), fc.constantFrom('it', 'com', 'org'))
          .map(([l, d, t]) => `${l}@${d}.${t}`),
      );
    case 'uri':
      return fc.webUrl();
  }
  if (schema.pattern) {
    try {
      return fit(fc.stringMatching(new RegExp(schema.pattern)));
    } catch {
      // a pattern fast-check cannot generate from: plain text below
    }
  }
  return fc
    .string({ unit: 'grapheme', minLength, maxLength: Math.min(maxLength, minLength + 40) })
    .filter((s) => s.length >= minLength && s.length <= maxLength);
}

/** A value close to valid: the schema's value with one thing wrong, or anything at all. */
function confusedValue(doc: OpenApiDoc, raw: Schema): fc.Arbitrary<unknown> {
  const schema = resolveRef(doc, raw);
  const options: fc.Arbitrary<unknown>[] = [hostileValue];
  if (typeOf(schema) === 'object' && schema.properties && Object.keys(schema.properties).length > 0) {
    const names = Object.keys(schema.properties);
    options.push(
      fc
        .tuple(validValue(doc, schema) as fc.Arbitrary<Record<string, unknown>>, fc.constantFrom(...names), hostileValue)
        .map(([v, k, bad]) => ({ ...v, [k]: bad })),
      fc
        .tuple(
          validValue(doc, schema) as fc.Arbitrary<Record<string, unknown>>,
          fc.constantFrom(...names),
          fc.constantFrom(...names),
          hostileValue,
          hostileValue,
        )
        .map(([v, k1, k2, b1, b2]) => ({ ...v, [k1]: b1, [k2]: b2 })),
      fc
        .tuple(validValue(doc, schema) as fc.Arbitrary<Record<string, unknown>>, fc.string({ minLength: 1, maxLength: 20 }), hostileValue)
        .map(([v, k, bad]) => ({ ...v, [k]: bad })),
      fc.tuple(validValue(doc, schema) as fc.Arbitrary<Record<string, unknown>>, fc.constantFrom(...names)).map(([v, k]) => {
        const copy = { ...v };
        delete copy[k];
        return copy;
      }),
    );
  }
  return fc.oneof(...options);
}

// ---------------------------------------------------------------------------------------
// Bytes on the wire

/** Percent-encodes the UTF-8 bytes of any string, lone surrogates included (as U+FFFD). */
function encodeComponent(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Integers as JavaScript would read them but not written in decimal digits (the schemas must refuse them). */
const INTEGER_SPELLINGS = ['1e2', '+5', '0x10', '0b1', '0o7', '%205', '5%20', '5.0', '1_0', '%EF%BC%95'];

/** Already-encoded path and query pieces that a percent-encoder would never produce. */
const RAW_URL_PIECES = [
  '%ff',
  '%FF%FE',
  '%',
  '%zz',
  '%c0%af',
  '%ed%a0%80',
  '%00',
  '..%2f..%2f',
  '%2e%2e',
  'a%20b',
  '%E2%80%AE',
  '%F0%9F%98%80',
  'x'.repeat(600),
  '%25',
];

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value) ?? String(value);
}

const pathSegment = (doc: OpenApiDoc, schema: Schema, knownIds: string[]) =>
  fc.oneof(
    { weight: 3, arbitrary: knownIds.length ? fc.constantFrom(...knownIds).map(encodeComponent) : fc.uuid() },
    { weight: 2, arbitrary: validValue(doc, schema).map((v) => encodeComponent(asText(v))) },
    { weight: 1, arbitrary: fc.uuid().map((u) => u.toUpperCase()) },
    { weight: 3, arbitrary: hostileValue.map((v) => encodeComponent(asText(v)).slice(0, 2000)).filter((s) => s.length > 0) },
    { weight: 2, arbitrary: fc.constantFrom(...RAW_URL_PIECES) },
  );

const queryValue = (doc: OpenApiDoc, schema: Schema) =>
  fc.oneof(
    { weight: 4, arbitrary: validValue(doc, schema).map((v) => encodeComponent(asText(v))) },
    { weight: 3, arbitrary: hostileValue.map((v) => encodeComponent(asText(v)).slice(0, 30_000)) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_URL_PIECES) },
    ...(typeOf(resolveRef(doc, schema)) === 'integer' ? [{ weight: 2, arbitrary: fc.constantFrom(...INTEGER_SPELLINGS) }] : []),
  );

/** Header values Node may send: visible ASCII and Latin-1, no CR or LF. */
const headerText = (max: number) =>
  fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((c) => c !== 0x7f)
      .map((c) => String.fromCharCode(c)),
    maxLength: max,
  });

/** What a client can put in a header: characters outside Latin-1 become `?`, as a browser would refuse them. */
const sendableHeader = (value: string) => value.replace(/[^\x20-\x7e\x80-\xff]/g, '?');

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/jsonx',
  'application/vnd.api+json',
  'application/json;;;',
  '*/*',
  '',
  'application/json, text/plain',
];

/** Bodies that are not what any schema describes: broken, huge, deep, poisoned. */
const RAW_BODIES: fc.Arbitrary<Buffer> = fc.oneof(
  fc.constantFrom(
    Buffer.from([0x7b, 0x22, 0x61, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), // invalid UTF-8 in a key
    Buffer.from('{"firstName":"\xc3\x28"}', 'latin1'), // invalid 2-byte sequence
    Buffer.from('{"firstName":"\xed\xa0\x80"}', 'latin1'), // encoded surrogate
    Buffer.from('{"firstName":"\xc0\xaf"}', 'latin1'), // overlong "/"
    Buffer.from('{"firstName":"\xf4\x90\x80\x80"}', 'latin1'), // above U+10FFFF
    Buffer.from('{"firstName":"Nicol\xf2"}', 'latin1'), // Latin-1 text
    Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), // BOM then {}
    Buffer.from('{"a":'),
    Buffer.from('{"a":1}garbage'),
    Buffer.from('{"a":1,}'),
    Buffer.from("{'a':1}"),
    Buffer.from('{"__proto__":{"isAdmin":true}}'),
    Buffer.from('{"constructor":{"prototype":{"isAdmin":true}}}'),
    Buffer.from('{"a":1,"a":2}'),
    Buffer.from('{"n":1e999999}'),
    Buffer.from('{"n":-1e999999}'),
    Buffer.from(`{"n":${'9'.repeat(5000)}}`),
    Buffer.from('{"n":0.' + '0'.repeat(5000) + '1}'),
    Buffer.from('null'),
    Buffer.from('[]'),
    Buffer.from('"text"'),
    Buffer.from('12'),
    Buffer.from('true'),
    Buffer.from(''),
    Buffer.from(' '),
    Buffer.from('{"a":"\\ud800"}'),
    Buffer.from('{"firstName":"x\\udc00","lastName":"\\ud83d\\ud83d"}'), // lone low, two highs
    Buffer.from('{"\\ud800":1}'),
    Buffer.from('{"a":"\\u0000"}'),
    Buffer.from('['.repeat(100_000) + ']'.repeat(100_000)),
    Buffer.from('{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000)),
    Buffer.from('['.repeat(10_000)),
  ),
  fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
  fc.integer({ min: 1_000_000, max: 1_200_000 }).map((n) => Buffer.from(JSON.stringify({ x: 'y'.repeat(n) }))),
);

interface RequestContext {
  doc: OpenApiDoc;
  /** Prefix of the document's server (e.g. `/v1`). */
  base: string;
  token: string;
  /** Ids that exist (the caller's own rows), so some requests reach real resources. */
  knownIds: string[];
}

export function hostileRequest(op: Operation, ctx: RequestContext): fc.Arbitrary<HostileRequest> {
  const { doc } = ctx;
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const headerParams = op.parameters.filter((p) => p.in === 'header');

  const path = fc
    .tuple(...pathParams.map((p) => pathSegment(doc, p.schema, ctx.knownIds).map((v) => [p.name, v] as const)))
    .map((pairs) => pairs.reduce((acc, [name, v]) => acc.replace(`{${name}}`, v), op.path));

  const declaredQuery = fc.tuple(
    ...queryParams.map((p) =>
      fc.option(
        queryValue(doc, p.schema).map((v) => `${encodeComponent(p.name)}=${v}`),
        { nil: null, freq: 2 },
      ),
    ),
  );
  const extraQuery = fc.array(
    fc.oneof(
      fc.tuple(fc.string({ minLength: 1, maxLength: 10 }), nastyString).map(([k, v]) => `${encodeComponent(k)}=${encodeComponent(v)}`),
      fc.constantFrom(
        'a[b]=1',
        'a[]=1&a[]=2',
        '__proto__[x]=1',
        'constructor[prototype][x]=1',
        '=',
        '&&&',
        '%ff=%ff',
        'limit=1&limit=2',
        'cursor=' + 'x'.repeat(501),
      ),
      queryParams.length ? fc.constantFrom(...queryParams).map((p) => `${p.name}=1&${p.name}=2`) : fc.constant('x=1'),
    ),
    { maxLength: 3 },
  );
  const query = fc
    .tuple(declaredQuery, fc.option(extraQuery, { nil: [], freq: 3 }))
    .map(([declared, extra]) => [...declared.filter((x): x is string => x !== null), ...extra].join('&'));

  const authorization = fc.oneof(
    { weight: 12, arbitrary: fc.constant(`Bearer ${ctx.token}`) },
    { weight: 1, arbitrary: fc.constantFrom('', 'Bearer', `Basic ${ctx.token}`, `Bearer ${ctx.token}x`, `Bearer  ${ctx.token} extra`, `bearer ${ctx.token}`) },
    { weight: 1, arbitrary: headerText(300).map((t) => `Bearer ${t}`) },
  );

  const headers = fc.record(
    {
      authorization,
      'idempotency-key': fc.oneof(fc.uuid(), headerText(40), headerText(300), fc.constant('')),
      'if-match': fc.oneof(fc.constantFrom('"1"', '"999999999999999999999"', 'W/"1"', '*', '"-1"', '""'), headerText(60)),
      'x-request-id': fc.oneof(fc.uuid(), headerText(200)),
      accept: fc.constantFrom('application/xml', 'text/html', '*/*', 'application/json;q=0'),
      'accept-encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', 'x'.repeat(100)),
      'x-forwarded-for': headerText(60),
      ...Object.fromEntries(
        headerParams.map((p) => [
          p.name.toLowerCase(),
          fc.oneof(
            validValue(doc, p.schema).map((v) => sendableHeader(asText(v))),
            headerText(300),
          ),
        ]),
      ),
    },
    { requiredKeys: ['authorization'] },
  );

  const jsonBody = (value: fc.Arbitrary<unknown>) => value.map((v) => ({ body: Buffer.from(JSON.stringify(v) ?? 'null'), contentType: 'application/json' }));
  const body: fc.Arbitrary<{ body: Buffer | null; contentType: string | null }> = op.body
    ? fc.oneof(
        { weight: 3, arbitrary: jsonBody(validValue(doc, op.body)) },
        { weight: 5, arbitrary: jsonBody(confusedValue(doc, op.body)) },
        { weight: 3, arbitrary: RAW_BODIES.map((b) => ({ body: b, contentType: 'application/json' })) },
        {
          weight: 2,
          arbitrary: fc
            .tuple(validValue(doc, op.body), fc.constantFrom(...CONTENT_TYPES))
            .map(([v, ct]) => ({ body: Buffer.from(JSON.stringify(v) ?? ''), contentType: ct })),
        },
        { weight: 1, arbitrary: fc.constant({ body: null, contentType: null }) },
        { weight: 1, arbitrary: fc.constant({ body: null, contentType: 'application/json' }) },
      )
    : fc.oneof(
        { weight: 6, arbitrary: fc.constant({ body: null, contentType: null }) },
        { weight: 1, arbitrary: RAW_BODIES.map((b) => ({ body: b, contentType: 'application/json' })) },
        { weight: 1, arbitrary: jsonBody(hostileValue) },
      );

  // Now and then a single-valued header twice: refused whatever the values (src/http/plugins/input.ts).
  const repeated = fc.oneof(
    { weight: 15, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('authorization', 'idempotency-key', 'content-type'), fc.oneof(fc.constant(null), headerText(40))) },
  );

  return fc.record({ path, query, headers, body, repeated }).map(({ path, query, headers, body, repeated }) => {
    const h: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(headers)) if (v !== undefined && !(k === 'authorization' && v === '')) h[k] = v as string;
    if (body.contentType !== null && body.contentType !== '') h['content-type'] = body.contentType;
    if (repeated !== null && typeof h[repeated[0]] === 'string') h[repeated[0]] = [h[repeated[0]] as string, repeated[1] ?? (h[repeated[0]] as string)];
    const url = `${ctx.base}${path}${query ? `?${query}` : ''}`;
    const shortUrl = url.length > 200 ? `${url.slice(0, 200)}… (${url.length} chars)` : url;
    const shownBody = body.body
      ? body.body.length > 200
        ? `${body.body.length} bytes: ${JSON.stringify(body.body.subarray(0, 80).toString('latin1'))}…`
        : JSON.stringify(body.body.toString('latin1'))
      : 'none';
    const shownHeaders = Object.entries(h)
      .flatMap(([k, values]) => [values].flat().map((v) => `${k}: ${v.length > 80 ? v.slice(0, 80) + `… (${v.length} chars)` : v}`))
      .join('; ');
    return labelled({
      method: op.method,
      url,
      headers: h,
      body: body.body,
      label: `${op.method} ${shortUrl}\n   headers: ${shownHeaders}\n   body: ${shownBody}`,
    });
  });
}

/** fast-check prints a counterexample with its label, not the whole (possibly megabyte) request. */
function labelled(req: HostileRequest): HostileRequest {
  Object.defineProperty(req, fc.toStringMethod, { value: () => req.label, enumerable: false });
  return req;
}

/** Requests to routes that do not exist: unknown paths and methods under the prefix. */
export function strayRequest(ctx: RequestContext, knownPaths: string[]): fc.Arbitrary<HostileRequest> {
  const paths = knownPaths.length ? knownPaths : ['/'];
  return fc
    .tuple(
      fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
      fc.oneof(
        fc.constantFrom(...paths).map((p) => p.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000') + '/extra'),
        fc.array(fc.oneof(nastyString.map(encodeComponent), fc.constantFrom(...RAW_URL_PIECES)), { minLength: 1, maxLength: 4 }).map((s) => '/' + s.join('/')),
      ),
    )
    .map(([method, path]) =>
      labelled({
        method,
        url: `${ctx.base}${path}`,
        headers: { authorization: `Bearer ${ctx.token}` },
        body: null,
        label: `${method} ${ctx.base}${path}`,
      }),
    );
}

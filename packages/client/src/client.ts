/**
 * The hand-written layer over openapi-fetch.
 *
 *   const api = createClient({ baseUrl: 'https://clinic.example/v1', apiKey: process.env.DCM_API_KEY! });
 *   const facility = await api.get('/facilities/{id}', { params: { path: { id } } });
 *   const same = await api.call('getFacility', { params: { path: { id } } });
 *   for await (const appointment of api.paginate('/appointments', { params: { query: { limit: 100 } } })) …
 *
 * - Idempotency-Key: every POST gets a random UUID unless the caller sets one; the retries of
 *   that call resend the same Request, so the same key (spec 4: the server replays, never redoes).
 * - Retries: see retry.ts (429 after Retry-After; 5xx with bounded exponential backoff when repeating is harmless).
 * - Errors: every non-2xx answer throws ApiClientError (status, code, message, details, requestId).
 * - `raw` is the plain openapi-fetch client (same retries and keys) returning `{ data, error, response }`.
 */
import { randomUUID } from 'node:crypto';
import createFetchClient, { type Client, type FetchResponse, type MaybeOptionalInit, type Middleware } from 'openapi-fetch';
import type { HttpMethod, OperationRequestBodyContent, PathsWithMethod, RequiredKeysOf, SuccessResponseJSON } from 'openapi-typescript-helpers';
import { ApiClientError } from './errors.js';
import { operations as generatedOperations } from './operations.js';
import { createRetryingFetch, type FetchLike, type RetryOptions } from './retry.js';
import type { operations as OperationTypes, paths as GeneratedPaths } from './schema.js';

export interface OperationInfo {
  method: HttpMethod;
  path: string;
  idempotent: boolean;
}

export interface DentalClinicClientOptions {
  /** The API base address, ending with `/v1` (e.g. `https://api.example.com/v1`). */
  baseUrl: string;
  /** A live (`dcm_live_…`) or test (`dcm_test_…`) key. */
  apiKey: string;
  /** Retry policy; `false` disables retries. */
  retry?: RetryOptions | false;
  /**
   * Send an Idempotency-Key on POSTs: `'creations'` (default) on the operations the document
   * marks as accepting one, and on POSTs to paths the generated table does not know (a newer
   * server); `'all'` on every POST; `'never'`.
   */
  idempotencyKeys?: 'creations' | 'all' | 'never';
  /** operationId -> method/path/idempotent. Default: the table generated with the types. */
  operations?: Record<string, OperationInfo>;
  /** Extra headers on every request (e.g. User-Agent). */
  headers?: Record<string, string>;
  /** The transport (default: global fetch). */
  fetch?: FetchLike;
  /** Makes the Idempotency-Key of a call (default: randomUUID). */
  newIdempotencyKey?: () => string;
}

type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

type Json = `${string}/${string}`;

/** The parsed success body of `Paths[P][M]`. */
export type ResponseData<Paths, P extends keyof Paths, M extends HttpMethod, Init = object> = NonNullable<
  FetchResponse<Paths[P][M & keyof Paths[P]] & Record<string | number, any>, Init, Json>['data']
>;

type ThrowingMethod<Paths extends Record<string, any>, M extends HttpMethod> = <
  P extends PathsWithMethod<Paths, M>,
  Init extends MaybeOptionalInit<Paths[P], M>,
>(
  path: P,
  ...init: InitParam<Init>
) => Promise<ResponseData<Paths, P, M, Init>>;

/** Item type of a `{ data: Item[], nextCursor }` page. */
export type PageItem<T> = 0 extends 1 & T ? any : T extends { data: (infer Item)[] } ? Item : unknown;

/** Options of an operation called by its operationId. */
export type OperationInit<Op> = Op extends { parameters: infer Params }
  ? (RequiredKeysOf<Params> extends never ? { params?: Params } : { params: Params }) &
      (OperationRequestBodyContent<Op> extends never
        ? { body?: never }
        : undefined extends OperationRequestBodyContent<Op>
          ? { body?: OperationRequestBodyContent<Op> }
          : { body: OperationRequestBodyContent<Op> }) &
      RequestExtras
  : LooseInit;

export interface RequestExtras {
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Options of an operation the generated types do not know yet (a newer server). */
export interface LooseInit extends RequestExtras {
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown>; header?: Record<string, unknown> };
  body?: unknown;
}

export type OperationData<Op> = Op extends Record<string | number, any> ? SuccessResponseJSON<Op> : unknown;

type KnownOperationId = keyof OperationTypes & string;
type CallResult<Id extends string> = Id extends KnownOperationId ? OperationData<OperationTypes[Id]> : any;
type CallInit<Id extends string> = Id extends KnownOperationId ? OperationInit<OperationTypes[Id]> : LooseInit;
type CallArgs<Id extends string> = Id extends KnownOperationId
  ? RequiredKeysOf<OperationInit<OperationTypes[Id]>> extends never
    ? [CallInit<Id>?]
    : [CallInit<Id>]
  : [LooseInit?];

export class DentalClinicClient<Paths extends Record<string, any> = GeneratedPaths> {
  /** The plain openapi-fetch client: `{ data, error, response }`, no throwing. */
  readonly raw: Client<Paths, Json>;
  readonly get: ThrowingMethod<Paths, 'get'>;
  readonly post: ThrowingMethod<Paths, 'post'>;
  readonly put: ThrowingMethod<Paths, 'put'>;
  readonly patch: ThrowingMethod<Paths, 'patch'>;
  readonly delete: ThrowingMethod<Paths, 'delete'>;
  private operationTable: Record<string, OperationInfo>;

  constructor(private readonly options: DentalClinicClientOptions) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required (it ends with /v1)');
    if (!options.apiKey) throw new TypeError('apiKey is required');
    this.operationTable = { ...(generatedOperations as Record<string, OperationInfo>), ...options.operations };
    const repeatable = new WeakSet<Request>();
    const transport: FetchLike = options.fetch ?? ((request) => globalThis.fetch(request));
    const fetch = options.retry === false ? transport : createRetryingFetch({ ...options.retry, fetch: transport, repeatable });
    this.raw = createFetchClient<Paths, Json>({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      fetch,
      headers: { ...options.headers, Authorization: `Bearer ${options.apiKey}` },
    });
    this.raw.use(this.idempotencyMiddleware(repeatable));
    this.get = ((path: string, init?: object) => this.send('GET', path, init)) as ThrowingMethod<Paths, 'get'>;
    this.post = ((path: string, init?: object) => this.send('POST', path, init)) as ThrowingMethod<Paths, 'post'>;
    this.put = ((path: string, init?: object) => this.send('PUT', path, init)) as ThrowingMethod<Paths, 'put'>;
    this.patch = ((path: string, init?: object) => this.send('PATCH', path, init)) as ThrowingMethod<Paths, 'patch'>;
    this.delete = ((path: string, init?: object) => this.send('DELETE', path, init)) as ThrowingMethod<Paths, 'delete'>;
  }

  /** The operations this client can call by id (generated table, plus `loadOperations`). */
  get operations(): Readonly<Record<string, OperationInfo>> {
    return this.operationTable;
  }

  /**
   * Reads the server's /openapi.json (public) and learns its operations, so `call()` reaches
   * operations newer than the generated types. Returns their ids.
   */
  async loadOperations(): Promise<Set<string>> {
    const doc = (await this.send('GET', '/openapi.json', undefined)) as { paths?: Record<string, Record<string, any>> };
    const table: Record<string, OperationInfo> = {};
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const [method, op] of Object.entries(item)) {
        if (!op || typeof op !== 'object' || typeof op.operationId !== 'string') continue;
        const params: any[] = [...(item.parameters ?? []), ...(op.parameters ?? [])];
        const idempotent = params.some((p) => p?.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key');
        table[op.operationId] = { method: method as HttpMethod, path, idempotent };
      }
    }
    this.operationTable = { ...this.operationTable, ...table };
    return new Set(Object.keys(table));
  }

  /**
   * Makes sure these operations can be called by id: reads the live document when one is not
   * in the generated table, and throws when the server does not have it either.
   */
  async ensureOperations(operationIds: readonly string[]): Promise<void> {
    if (operationIds.every((id) => id in this.operationTable)) return;
    await this.loadOperations();
    const missing = operationIds.filter((id) => !(id in this.operationTable));
    if (missing.length) throw new TypeError(`The server does not offer ${missing.join(', ')}`);
  }

  /** Calls an operation by its operationId (typed when the generated types know it). */
  async call<Id extends KnownOperationId | (string & {})>(operationId: Id, ...init: CallArgs<Id>): Promise<CallResult<Id>> {
    const op = this.operationTable[operationId];
    if (!op) throw new TypeError(`Unknown operationId "${operationId}": run npm run client:generate, or call loadOperations()`);
    return (await this.send(op.method.toUpperCase(), op.path, init[0] as object | undefined)) as CallResult<Id>;
  }

  /** Like `call`, with the response too (headers such as `ETag`, `Idempotent-Replayed`). */
  async callWithResponse<Id extends KnownOperationId | (string & {})>(
    operationId: Id,
    ...init: CallArgs<Id>
  ): Promise<{ data: CallResult<Id>; response: Response }> {
    const op = this.operationTable[operationId];
    if (!op) throw new TypeError(`Unknown operationId "${operationId}": run npm run client:generate, or call loadOperations()`);
    const { data, response } = await this.sendFull(op.method.toUpperCase(), op.path, init[0] as object | undefined);
    return { data: data as CallResult<Id>, response };
  }

  /**
   * Every item of a list, page after page, following `nextCursor` until it is null.
   * The query of `init` is sent on every page, with `cursor` set from the second page on.
   */
  paginate<P extends PathsWithMethod<Paths, 'get'>, Init extends MaybeOptionalInit<Paths[P], 'get'>>(
    path: P,
    ...init: InitParam<Init>
  ): AsyncIterable<PageItem<ResponseData<Paths, P, 'get', Init>>> {
    return this.paginatePath(path as string, init[0] as LooseInit | undefined) as AsyncIterable<PageItem<ResponseData<Paths, P, 'get', Init>>>;
  }

  /** `paginate` by operationId (a list operation). */
  paginateOperation<Id extends KnownOperationId | (string & {})>(operationId: Id, ...init: CallArgs<Id>): AsyncIterable<PageItem<CallResult<Id>>> {
    const op = this.operationTable[operationId];
    if (!op) throw new TypeError(`Unknown operationId "${operationId}": run npm run client:generate, or call loadOperations()`);
    if (op.method !== 'get') throw new TypeError(`${operationId} is not a list (GET) operation`);
    return this.paginatePath(op.path, init[0] as LooseInit | undefined) as AsyncIterable<PageItem<CallResult<Id>>>;
  }

  /** Pages (`{ data, nextCursor }`) rather than items. */
  async *pages(path: string, init?: LooseInit): AsyncGenerator<{ data: unknown[]; nextCursor: string | null }> {
    let cursor: string | null = null;
    const seen = new Set<string>();
    do {
      const query = { ...init?.params?.query, ...(cursor === null ? {} : { cursor }) };
      const page = (await this.send('GET', path, { ...init, params: { ...init?.params, query } })) as {
        data?: unknown;
        nextCursor?: unknown;
      };
      if (!page || !Array.isArray(page.data)) throw new TypeError(`GET ${path} did not answer a page ({ data, nextCursor })`);
      const next = typeof page.nextCursor === 'string' ? page.nextCursor : null;
      yield { data: page.data, nextCursor: next };
      if (next !== null) {
        if (seen.has(next)) throw new Error(`GET ${path} returned the same nextCursor twice: stopping to avoid a loop`);
        seen.add(next);
      }
      cursor = next;
    } while (cursor !== null);
  }

  private async *paginatePath(path: string, init?: LooseInit): AsyncGenerator<unknown> {
    for await (const page of this.pages(path, init)) yield* page.data;
  }

  private idempotencyMiddleware(repeatable: WeakSet<Request>): Middleware {
    const mode = this.options.idempotencyKeys ?? 'creations';
    const newKey = this.options.newIdempotencyKey ?? randomUUID;
    return {
      onRequest: ({ request, schemaPath }) => {
        if (request.method !== 'POST') return undefined;
        const known = Object.values(this.operationTable).find((o) => o.method === 'post' && o.path === schemaPath);
        if (!request.headers.has('idempotency-key')) {
          const send = mode === 'all' || (mode === 'creations' && (known ? known.idempotent : true));
          if (send) request.headers.set('Idempotency-Key', newKey());
        }
        // A repeated POST is harmless only where the server honours the key.
        if (request.headers.has('idempotency-key') && known?.idempotent) repeatable.add(request);
        return undefined;
      },
    };
  }

  private async send(method: string, path: string, init: object | undefined): Promise<unknown> {
    return (await this.sendFull(method, path, init)).data;
  }

  private async sendFull(method: string, path: string, init: object | undefined): Promise<{ data: unknown; response: Response }> {
    let result: { data?: unknown; error?: unknown; response: Response };
    try {
      result = await (this.raw.request as any)(method.toLowerCase(), path, init);
    } catch (error) {
      if (error instanceof ApiClientError) throw error;
      if ((error as { name?: string })?.name === 'AbortError') throw error;
      throw ApiClientError.network(error, method, `${this.options.baseUrl}${path}`);
    }
    if (!result.response.ok) throw ApiClientError.fromResponse(result.response, result.error, method);
    return { data: result.data, response: result.response };
  }
}

export function createClient<Paths extends Record<string, any> = GeneratedPaths>(options: DentalClinicClientOptions): DentalClinicClient<Paths> {
  return new DentalClinicClient<Paths>(options);
}

/**
 * The back office as the CLI sees it: its operations (read from its OpenAPI document) and a
 * way to call one. Two transports, the same routes: over HTTP to a running service (its
 * validation, rules and errors) or in-process through app.inject on the database the CLI
 * opened itself (no server needed). src/cli/connect.ts picks one.
 */
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';

/** A JSON schema as the OpenAPI document holds it (only what the help reads). */
export interface FieldSchema {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  anyOf?: FieldSchema[];
  properties?: Record<string, FieldSchema>;
  required?: string[];
  items?: FieldSchema;
  format?: string;
}

export interface AdminOperation {
  operationId: string;
  method: string;
  path: string;
  summary: string;
  pathParams: string[];
  queryParams: string[];
  hasBody: boolean;
  body: FieldSchema | null;
  /** The request example of the document (its fields are realistic values). */
  example: unknown;
}

export interface AdminResponse {
  status: number;
  body: any;
}

export interface AdminApi {
  operations: AdminOperation[];
  /** Where the calls go: "the service at http://…" or "the database …". */
  target: string;
  call(op: AdminOperation, params: Record<string, string>, body: unknown): Promise<AdminResponse>;
  close(): Promise<void>;
}

/** An error answer of the back office: its envelope, for one line (or JSON) on stderr. */
export class AdminCallError extends Error {
  constructor(
    readonly status: number,
    readonly error: { code: string; message: string; details: Record<string, unknown> | null },
  ) {
    super(error.message);
  }
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** `adminCreatePatient` -> `create-patient`. */
export const commandName = (operationId: string) => kebab(operationId.replace(/^admin/, '')).replace(/^-/, '');

/**
 * The option of a path or query parameter: one spelling for the clinic everywhere (`--clinic`),
 * whether the path names it `clinicId` or, under /clinics/{id}, `id`.
 */
export function optionName(op: Pick<AdminOperation, 'path'>, param: string): string {
  if (param === 'clinicId' || (param === 'id' && op.path === '/clinics/{id}')) return 'clinic';
  return kebab(param);
}

export function operationsOf(doc: { paths: Record<string, Record<string, any>> }): AdminOperation[] {
  const operations: AdminOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const params = (op.parameters ?? []) as Array<{ in: string; name: string }>;
      const content = op.requestBody?.content?.['application/json'];
      operations.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        summary: op.summary ?? '',
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        hasBody: !!op.requestBody,
        body: content?.schema ?? null,
        example: content?.example ?? content?.schema?.examples?.[0],
      });
    }
  }
  return operations.sort((a, b) => commandName(a.operationId).localeCompare(commandName(b.operationId)));
}

function urlOf(op: AdminOperation, params: Record<string, string>): string {
  let url = `/admin/v1${op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''))}`;
  const query = new URLSearchParams();
  for (const q of op.queryParams) if (params[q] !== undefined) query.set(q, params[q]!);
  if ([...query].length) url += `?${query}`;
  return url;
}

/** In this process, on `ctx`'s database: the routes through app.inject (no listener, no port). */
export async function inProcessAdminApi(ctx: AppContext, target: string): Promise<AdminApi> {
  const { buildApp } = await import('../app.js');
  const token = randomBytes(24).toString('base64url');
  // app.inject requests arrive on no listener, so the back office is not bound to ADMIN_PORT's.
  const app = await buildApp({ ctx: { ...ctx, config: { ...ctx.config, adminToken: token, adminPort: null, logLevel: 'silent' } }, logger: false });
  const authorization = `Bearer ${token}`;
  const doc = (await app.inject({ method: 'GET', url: '/admin/v1/openapi.json', headers: { authorization } })).json();
  return {
    operations: operationsOf(doc),
    target,
    async call(op, params, body) {
      const res = await app.inject({
        method: op.method as 'GET',
        url: urlOf(op, params),
        headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        payload: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.statusCode, body: res.body ? res.json() : null };
    },
    close: () => app.close(),
  };
}

/** A running service's back office over HTTP (`baseUrl` without /admin/v1). */
export async function httpAdminApi(baseUrl: string, token: string): Promise<AdminApi> {
  const base = baseUrl.replace(/\/+$/, '');
  const authorization = `Bearer ${token}`;
  const send = async (method: string, url: string, body: unknown): Promise<AdminResponse> => {
    let res: Response;
    try {
      res = await fetch(base + url, {
        method,
        headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        // The token goes to DCM_URL alone (src/cli/connect.ts), never on to where a redirect points.
        redirect: 'error',
      });
    } catch (error) {
      throw new Error(`cannot reach the service at ${base}: ${((error as Error).cause as Error | undefined)?.message ?? (error as Error).message}`, {
        cause: error,
      });
    }
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const doc = await send('GET', '/admin/v1/openapi.json', undefined);
  if (doc.status === 401 || doc.status === 404)
    throw new Error(`the service at ${base} refused the back-office token (${doc.status}): set ADMIN_TOKEN to the service's`);
  if (doc.status !== 200) throw new Error(`the service at ${base} answered ${doc.status} for its back-office document`);
  return {
    operations: operationsOf(doc.body),
    target: `the service at ${base}`,
    call: (op, params, body) => send(op.method, urlOf(op, params), body),
    close: async () => {},
  };
}

/** Calls an operation by id; the answer's body, or AdminCallError for an error answer. */
export async function request(api: AdminApi, operationId: string, params: Record<string, string>, body?: unknown): Promise<any> {
  const op = api.operations.find((o) => o.operationId === operationId);
  if (!op) throw new Error(`the back office has no operation ${operationId}`);
  const res = await api.call(op, params, body);
  if (res.status >= 400) {
    const e = res.body?.error ?? {};
    throw new AdminCallError(res.status, { code: e.code ?? String(res.status), message: e.message ?? '', details: e.details ?? null });
  }
  return res.body;
}

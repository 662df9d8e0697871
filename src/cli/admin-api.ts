/**
 * Every back-office operation from the command line, generated from the back-office
 * OpenAPI document: `dental-clinic call <operationId> --clinic-id … --body '{…}'`.
 * Requests go through the real routes in-process (app.inject): the same validation,
 * service functions and errors as /admin/v1, with no server to run.
 */
import { randomBytes } from 'node:crypto';
import { buildApp } from '../app.js';
import type { AppContext } from '../context.js';

export interface AdminOperation {
  operationId: string;
  method: string;
  path: string;
  summary: string;
  pathParams: string[];
  queryParams: string[];
  hasBody: boolean;
}

export interface AdminApi {
  operations: AdminOperation[];
  call(op: AdminOperation, params: Record<string, string>, body: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** `adminCreatePatient` -> `create-patient`. */
export const commandName = (operationId: string) => kebab(operationId.replace(/^admin/, '')).replace(/^-/, '');

export async function openAdminApi(ctx: AppContext): Promise<AdminApi> {
  const token = randomBytes(24).toString('base64url');
  // In process: app.inject requests arrive on no listener, so the back office is not bound to ADMIN_PORT's.
  const app = await buildApp({ ctx: { ...ctx, config: { ...ctx.config, adminToken: token, adminPort: null, logLevel: 'silent' } }, logger: false });
  const doc = (await app.inject({ method: 'GET', url: '/admin/v1/openapi.json', headers: { authorization: `Bearer ${token}` } })).json();
  const operations: AdminOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(item)) {
      const params = (op.parameters ?? []) as Array<{ in: string; name: string }>;
      operations.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        summary: op.summary ?? '',
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        hasBody: !!op.requestBody,
      });
    }
  }
  operations.sort((a, b) => commandName(a.operationId).localeCompare(commandName(b.operationId)));
  return {
    operations,
    async call(op, params, body) {
      let url = `/admin/v1${op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''))}`;
      const query = new URLSearchParams();
      for (const q of op.queryParams) if (params[q] !== undefined) query.set(q, params[q]!);
      if ([...query].length) url += `?${query}`;
      const res = await app.inject({
        method: op.method as 'GET',
        url,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        payload: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.statusCode, body: res.body ? res.json() : null };
    },
    close: () => app.close(),
  };
}

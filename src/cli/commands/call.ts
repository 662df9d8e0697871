/** `dental-clinic call <operation>`: any back-office operation, with its parameters as options. */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { closeContext } from '../../bootstrap.js';
import type { AppContext } from '../../context.js';
import { testConfig } from '../../config.js';
import { Authenticator } from '../../modules/auth/authenticate.js';
import { offlineDocumentsRuntime } from '../../modules/documents/runtime.js';
import { commandName, kebab, openAdminApi, type AdminOperation } from '../admin-api.js';
import type { Command } from '../commands.js';
import { printResult } from '../output.js';
import { describeApiError, fail, openContext } from '../support.js';

/** The operations, read from routes built without a database (building touches none). */
export async function listAdminOperations(): Promise<AdminOperation[]> {
  const config = testConfig();
  const offline = {
    config,
    documents: offlineDocumentsRuntime(config.documents),
    database: null,
    db: null,
    authenticator: new Authenticator(null as never),
    cursorSecret: '',
  } as unknown as AppContext;
  const api = await openAdminApi(offline);
  await api.close();
  return api.operations;
}

function find(operations: AdminOperation[], name: string): AdminOperation | undefined {
  return operations.find((o) => commandName(o.operationId) === name || o.operationId === name);
}

function readBody(value: string): unknown {
  const text = value.startsWith('@') ? fs.readFileSync(value.slice(1), 'utf8') : value;
  try {
    return JSON.parse(text);
  } catch {
    fail('--body is not valid JSON (give JSON, or @file.json)', 2);
  }
}

export const callCommand: Command = {
  name: 'call',
  summary: 'Run any back-office operation (listed below) with its parameters as options',
  options: {},
  async passThrough(args) {
    const [name, ...rest] = args;
    const operations = await listAdminOperations();
    const op = name && !name.startsWith('-') ? find(operations, name) : undefined;
    if (!op)
      fail(
        name && !name.startsWith('-')
          ? `unknown operation "${name}". Run "dental-clinic --help" to list them.`
          : 'name an operation: dental-clinic call <operation> …',
        2,
      );
    const params = [...op.pathParams, ...op.queryParams];
    if (rest.includes('--help') || rest.includes('-h')) {
      console.log(
        [
          `Usage: dental-clinic call ${commandName(op.operationId)} ${params.map((p) => `--${kebab(p)} <value>`).join(' ')}${op.hasBody ? " --body '<json>'|@file.json" : ''} [--json]`,
          '',
          `${op.method} /admin/v1${op.path}: ${op.summary}`,
          `Path parameters are required; the body is described in /admin/v1/openapi.json (${op.operationId}).`,
        ].join('\n'),
      );
      return;
    }
    let values: Record<string, string | boolean | undefined>;
    try {
      values = parseArgs({
        args: rest,
        options: {
          ...Object.fromEntries(params.map((p) => [kebab(p), { type: 'string' as const }])),
          ...(op.hasBody ? { body: { type: 'string' as const } } : {}),
          json: { type: 'boolean' as const },
        },
        strict: true,
        allowPositionals: false,
      }).values;
    } catch (error) {
      fail(`${(error as Error).message}. Run "dental-clinic call ${commandName(op.operationId)} --help".`, 2);
    }
    for (const p of op.pathParams) if (values[kebab(p)] === undefined) fail(`--${kebab(p)} is required`, 2);
    const body = op.hasBody ? readBody(typeof values.body === 'string' ? values.body : '{}') : undefined;
    const byName = Object.fromEntries(params.flatMap((p) => (typeof values[kebab(p)] === 'string' ? [[p, values[kebab(p)] as string]] : [])));

    const ctx = await openContext();
    const api = await openAdminApi(ctx);
    try {
      const res = await api.call(op, byName, body);
      if (res.status >= 400) {
        const e = res.body?.error ?? {};
        fail(describeApiError(e.code ?? String(res.status), e.message ?? '', e.details ?? null));
      }
      const data = res.body && typeof res.body === 'object' && Array.isArray(res.body.data) && !values.json ? res.body.data : res.body;
      printResult(data ?? { status: res.status }, !!values.json);
    } finally {
      await api.close();
      await closeContext(ctx);
    }
  },
  async run() {},
};

/**
 * `dental-clinic call <operation>`: any back-office operation, its path and query parameters as
 * options (`--clinic` for the clinic, whatever the path calls it) and its body as JSON (`--body`).
 * The help of each lists the body's fields, from the same schemas the routes validate with.
 */
import fs from 'node:fs';
import { commandName, optionName, request, type AdminOperation, type FieldSchema } from '../admin-api.js';
import type { Args } from '../commands.js';
import type { Connection } from '../connect.js';
import { printResult, UsageError } from '../output.js';

const typeOf = (s: FieldSchema): string => {
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join('|');
  if (s.anyOf) return s.anyOf.map(typeOf).join('|');
  const t = Array.isArray(s.type) ? s.type.join('|') : (s.type ?? 'any');
  return t === 'array' && s.items ? `${typeOf(s.items)}[]` : s.format ? `${t} (${s.format})` : t;
};

/** The help text below an operation's options: the body's fields and an example command. */
export function operationHelp(op: AdminOperation): string {
  const lines = [`${op.method} /admin/v1${op.path}`];
  if (op.body?.properties) {
    const required = new Set(op.body.required ?? []);
    const fields = Object.entries(op.body.properties);
    const w = Math.max(...fields.map(([k]) => k.length));
    lines.push('', 'Body fields (--body, JSON):');
    for (const [name, schema] of fields) {
      const description = schema.description ? `  ${schema.description.split('\n')[0]!.slice(0, 100)}` : '';
      lines.push(`  ${name.padEnd(w)}  ${typeOf(schema)}${required.has(name) ? ' (required)' : ''}${description}`);
    }
  }
  const params = [...op.pathParams.map((p) => `--${optionName(op, p)} <${p}>`)];
  const body = op.hasBody ? ` --body '${JSON.stringify(op.example ?? {})}'` : '';
  lines.push('', 'Example:', `  dental-clinic call ${commandName(op.operationId)} ${params.join(' ')}${body}`.replace(/ +$/, ''));
  return lines.join('\n');
}

function readBody(value: string): unknown {
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = fs.readFileSync(value.slice(1), 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${value.slice(1)}: ${(error as Error).message}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError('--body is not valid JSON (give JSON, or @file.json)');
  }
}

export async function runOperation(c: Connection, op: AdminOperation, args: Args, json: boolean): Promise<void> {
  const params: Record<string, string> = {};
  for (const p of [...op.pathParams, ...op.queryParams]) {
    const v = args[optionName(op, p)];
    if (typeof v === 'string') params[p] = v;
  }
  const body = op.hasBody ? readBody(typeof args.body === 'string' ? args.body : '{}') : undefined;
  const res = await request(c.api, op.operationId, params, body);
  const data = res && typeof res === 'object' && Array.isArray(res.data) && !json ? res.data : res;
  printResult(data ?? { done: true }, json);
}

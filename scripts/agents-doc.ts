/**
 * npm run docs:agents
 *
 * Writes docs/agents.md from the tool registry (src/agents) and the routes of an in-process app:
 * the prose of scripts/agents-doc.md, its `<!-- generated: … -->` markers replaced by which key
 * sees which tool and by each tool as a model reads it (description, arguments, answer,
 * annotations) and as an integrator calls it (operation, scopes). A test fails while the
 * committed file is stale: edit the registry, the routes or scripts/agents-doc.md, then run this.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENT_TOOLS, annotationsOf, derived, describe, shownInput, type JsonSchema } from '../src/agents/registry.js';
import { AUDIENCE_OF, readOnly, type AgentTool } from '../src/agents/tool.js';
import { buildApp } from '../src/app.js';
import { createContext } from '../src/bootstrap.js';
import { testConfig } from '../src/config.js';
import { AGENT_KINDS } from '../src/core/actor.js';
import type { PlannedRoute } from '../src/http/planes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const AGENTS_DOC = path.join(root, 'docs/agents.md');
const TEMPLATE = path.join(root, 'scripts/agents-doc.md');

/** The docs show every sentence a description has: the one a key with every tool reads. */
const ALL_TOOLS: ReadonlySet<string> = new Set(AGENT_TOOLS.map((t) => t.name));

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function typeOf(schema: JsonSchema): string {
  if (Array.isArray(schema.enum))
    return (
      schema.enum
        .filter((v) => v !== null)
        .map((v) => `\`${String(v)}\``)
        .join(', ') + (schema.enum.includes(null) ? ', null' : '')
    );
  const types = [schema.type].flat().filter(Boolean) as string[];
  if (types.length === 0 && Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).map(typeOf).join(' or ');
  const format = typeof schema.format === 'string' ? ` (${schema.format})` : '';
  const items = schema.items && typeof schema.items === 'object' ? ` of ${typeOf(schema.items as JsonSchema)}` : '';
  return `${types.join(' or ')}${items}${format}`;
}

function argumentsTable(input: JsonSchema): string {
  const properties = (input.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((input.required as string[] | undefined) ?? []);
  if (Object.keys(properties).length === 0) return 'No arguments.';
  const rows = Object.entries(properties).map(
    ([name, schema]) => `| \`${name}\` | ${cell(typeOf(schema))} | ${required.has(name) ? 'yes' : ''} | ${cell(String(schema.description ?? ''))} |`,
  );
  return ['| argument | type | required | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

function answerFields(output: JsonSchema): string {
  const properties = Object.keys((output.properties ?? {}) as Record<string, unknown>);
  return properties.length === 0 ? 'an object' : properties.map((p) => `\`${p}\``).join(', ');
}

function scopesOf(tool: AgentTool, routes: readonly PlannedRoute[]): readonly string[] {
  return routes.find((r) => r.plane === 'v1' && r.method === tool.operation.method && r.url === tool.operation.url)?.scopes ?? [];
}

/** Which kinds of key list the tool (its scopes aside), and in read-only mode. */
function visibilityTable(routes: readonly PlannedRoute[]): string {
  const kinds = AGENT_KINDS.map((kind) => ({ kind, audience: AUDIENCE_OF[kind] }));
  const header = `| tool | scopes | ${kinds.map((k) => `\`${k.kind}\` key`).join(' | ')} | read-only mode |`;
  const rows = AGENT_TOOLS.map((tool) => {
    const seen = kinds.map(({ audience }) => (audience === null || tool.audience === 'all' || tool.audience === audience ? 'yes' : ''));
    return `| \`${tool.name}\` | ${scopesOf(tool, routes)
      .map((s) => `\`${s}\``)
      .join(' ')} | ${seen.join(' | ')} | ${readOnly(tool) ? 'yes' : ''} |`;
  });
  return [header, `|---|---|${kinds.map(() => '---|').join('')}---|`, ...rows].join('\n');
}

/** The operation's arguments a model is not shown, which the tool still takes. */
function alsoAccepted(tool: AgentTool): string[] {
  const alias = tool.callIdAs !== undefined && tool.callIdAs !== 'callId' ? [`\`${tool.callIdAs}\` (the call's id: an alias of \`callId\`)`] : [];
  const names = [...alias, ...(tool.unshown ?? []).map((n) => `\`${n}\``)];
  return names.length === 0 ? [] : [`Also accepted, not shown to a model: ${names.join(', ')}.`, ''];
}

function toolSection(tool: AgentTool, routes: readonly PlannedRoute[]): string {
  const { input, output } = derived(tool);
  const hints = annotationsOf(tool);
  const flags = [
    hints.readOnlyHint ? 'read-only' : 'writes',
    hints.idempotentHint && !hints.readOnlyHint ? 'a plain retry has no further effect' : '',
    hints.destructiveHint ? 'destructive' : '',
  ].filter(Boolean);
  return [
    `### \`${tool.name}\`: ${tool.title}`,
    '',
    describe(tool, '{timeZone}', ALL_TOOLS),
    '',
    `Operation: \`${tool.operation.method} ${tool.operation.url.replace(/:([A-Za-z]+)/g, '{$1}')}\` (\`${tool.operation.operationId}\`), scopes ${
      scopesOf(tool, routes)
        .map((s) => `\`${s}\``)
        .join(' ') || 'none'
    }; ${flags.join(', ')}.`,
    '',
    argumentsTable(shownInput(tool, input)),
    '',
    ...alsoAccepted(tool),
    `Answer: ${answerFields(output)}.`,
  ].join('\n');
}

export function agentsDoc(routes: readonly PlannedRoute[], template = fs.readFileSync(TEMPLATE, 'utf8')): string {
  const generated: Record<string, string> = {
    visibility: visibilityTable(routes),
    tools: AGENT_TOOLS.map((tool) => toolSection(tool, routes)).join('\n\n'),
  };
  return template.replace(/<!-- generated: ([a-z]+) -->/g, (marker, name: string) => {
    const text = generated[name];
    if (text === undefined) throw new Error(`scripts/agents-doc.md: unknown marker ${marker}`);
    return text;
  });
}

/** The routes of an in-process app on an in-memory database (no port, no network). */
export async function plannedRoutes(): Promise<readonly PlannedRoute[]> {
  const ctx = await createContext(testConfig({ databaseUrl: null }), { inMemory: true });
  try {
    const app = await buildApp({ ctx, logger: false });
    const routes = [...app.plannedRoutes];
    await app.close();
    return routes;
  } finally {
    await ctx.database.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(AGENTS_DOC, agentsDoc(await plannedRoutes()));
  console.log(`wrote ${path.relative(root, AGENTS_DOC)}`);
}

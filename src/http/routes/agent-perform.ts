/**
 * How an agent tool reaches the data: through its REST operation's own route, in process
 * (Fastify's inject), with the caller's `Authorization`. Nothing is restated: the v1 gate
 * authenticates the key (cached), charges the operation's budget and checks its scopes and the
 * AI switch; the route validates the arguments (every wrong field named), calls its service
 * with the actor, writes the access log and honours the Idempotency-Key a retried tool derives.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { OperationRequest, OperationResponse, Perform } from '../../agents/executor.js';
import type { AgentTool } from '../../agents/tool.js';
import { AGENT_TOOLS, derived } from '../../agents/registry.js';
import type { ValidationIssue } from '../../core/errors.js';
import { argumentsChecker } from '../validation.js';
import type { PlannedRoute } from '../planes.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function performThroughRoutes(app: FastifyInstance, request: FastifyRequest): Perform {
  let n = 0;
  return async (operation: OperationRequest): Promise<OperationResponse> => {
    // The operation's request id joins the MCP request's in the logs and the access log.
    const id = `${request.id}.${++n}`;
    const headers: Record<string, string> = { authorization: request.headers.authorization ?? '' };
    if (REQUEST_ID.test(id)) headers['x-request-id'] = id;
    if (operation.idempotencyKey) headers['idempotency-key'] = operation.idempotencyKey;
    if (operation.body !== undefined) headers['content-type'] = 'application/json';
    const response = await app.inject({
      method: operation.method,
      url: operation.path,
      query: operation.query,
      headers,
      remoteAddress: request.ip,
      ...(operation.body !== undefined ? { payload: JSON.stringify(operation.body) } : {}),
    });
    const text = response.body;
    return { status: response.statusCode, body: text.length > 0 ? (JSON.parse(text) as unknown) : null, headers: response.headers };
  };
}

/** A schema as JSON (TypeBox's markers are not enumerable): two schemas built alike compare equal. */
const asJson = (schema: unknown) => (schema === undefined ? undefined : JSON.stringify(schema));

/**
 * Every tool's operation as its route declares it, checked once all routes exist (the app does not
 * start otherwise): the route exists on /v1 with the tool's method, its operationId is the tool's,
 * and the tool's path, query, body and answer schemas are the route's. A tool whose schemas drifted
 * from its route would show a model arguments the route refuses.
 */
export function checkToolOperations(routes: readonly PlannedRoute[], tools: readonly AgentTool[] = AGENT_TOOLS): void {
  const problems: string[] = [];
  for (const tool of tools) {
    const route = routes.find((r) => r.method === tool.operation.method && r.url === tool.operation.url && r.plane === 'v1');
    if (!route) {
      problems.push(`${tool.name}: no v1 route ${tool.operation.method} ${tool.operation.url}`);
      continue;
    }
    const schema = route.schema ?? {};
    if (schema.operationId !== tool.operation.operationId)
      problems.push(`${tool.name}: operationId ${tool.operation.operationId}, the route's is ${schema.operationId}`);
    const [status, answer] = Object.entries(schema.response ?? {}).find(([code]) => code.startsWith('2')) ?? [];
    // An operation that answers 204 has no body: its tool answers { done: true } (registry.ts DONE).
    if (status === '204' && tool.output !== undefined) problems.push(`${tool.name}: its operation answers 204, no body to be its answer`);
    const pairs: [string, unknown, unknown][] = [
      ['path', tool.params?.schema, schema.params],
      ['query', tool.query, schema.querystring],
      ['body', tool.body, schema.body],
      ['answer', tool.output, status === '204' ? undefined : answer],
    ];
    for (const [part, ofTool, ofRoute] of pairs) if (asJson(ofTool) !== asJson(ofRoute)) problems.push(`${tool.name}: its ${part} schema is not its route's`);
  }
  if (problems.length > 0) throw new Error(`agent tools out of step with their routes:\n${problems.join('\n')}`);
}

/** What each tool's route declares of its operation, read once all routes exist: its scopes, whether it takes an Idempotency-Key. */
interface ToolRoute {
  scopes: readonly string[];
  takesKey: boolean;
}

const routesByApp = new WeakMap<FastifyInstance, Map<string, ToolRoute>>();

function toolRoutes(app: FastifyInstance): Map<string, ToolRoute> {
  let byTool = routesByApp.get(app);
  if (!byTool) {
    byTool = new Map();
    for (const tool of AGENT_TOOLS) {
      const route = app.plannedRoutes.find((r) => r.method === tool.operation.method && r.url === tool.operation.url && r.plane === 'v1');
      if (!route) throw new Error(`agent tool ${tool.name}: no v1 route ${tool.operation.method} ${tool.operation.url}`);
      byTool.set(tool.name, { scopes: route.scopes ?? [], takesKey: route.takesKey === true });
    }
    routesByApp.set(app, byTool);
  }
  return byTool;
}

/** The scopes of each tool's operation, as its route declares them. */
export function toolScopes(app: FastifyInstance): (tool: AgentTool) => readonly string[] {
  const byTool = toolRoutes(app);
  return (tool) => byTool.get(tool.name)!.scopes;
}

/** Whether a tool's operation takes an Idempotency-Key, as its route declares it (the call ledger's record, src/agents/executor.ts). */
export function operationTakesKey(app: FastifyInstance, tool: AgentTool): boolean {
  return toolRoutes(app).get(tool.name)!.takesKey;
}

const checkers = new Map<string, (args: unknown) => ValidationIssue[]>();

/**
 * Every wrong argument at once, by the tool's input schema (the operation's schemas, merged):
 * the route would name the path's first and stop there.
 */
export function checkArguments(tool: AgentTool, args: Record<string, unknown>): ValidationIssue[] {
  let check = checkers.get(tool.name);
  if (!check) checkers.set(tool.name, (check = argumentsChecker(derived(tool).input)));
  return check(args);
}

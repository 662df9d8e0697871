/**
 * The MCP endpoint: `POST /mcp`, streamable HTTP, stateless (no session: any process
 * answers any request), on the v1 plane so the bearer key, its facilities, the access log and
 * the rate limits are the REST API's own. A tool call is performed as its REST operation, with
 * the caller's key, through the operation's route (Fastify's in-process inject): the same gate
 * charges that operation's budget and checks its scopes, the same service answers. The MCP
 * messages themselves (initialize, tools/list, the call's envelope) count in a window of their
 * own, so a tool call costs the clinic's budget once, as the operation it performs.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { callIdOf, runTool, withCallId, type Perform, type ToolOutcome } from '../../agents/executor.js';
import { annotationsOf, derived, describe, listed, toolNamed } from '../../agents/registry.js';
import { errorPayload, mcpResult, nowLine, type ErrorPayload } from '../../agents/results.js';
import { withStartReadings } from '../../agents/readings.js';
import { withClinicTimes } from '../../agents/local-time.js';
import type { AgentTool } from '../../agents/tool.js';
import { callable, namesAsked, READONLY_VALUES, readonlyAsked, visibleTools, type ToolFilter } from '../../agents/visibility.js';
import { aiDisabled } from '../../modules/auth/index.js';
import { ApiError, type ValidationIssue } from '../../core/errors.js';
import type { Config } from '../../config.js';
import { browserOriginAllowed } from '../browser-origin.js';
import type { App } from '../types.js';
import { agentMessageRules, type RateLimits } from '../rate-limit/limiter.js';
import { checkArguments, operationTakesKey, performThroughRoutes, toolScopes } from './agent-perform.js';

/** The API's version, as the OpenAPI document states it. */
const VERSION = '1.0.0';

const McpQuery = Type.Object(
  {
    readonly: Type.Optional(Type.String({ enum: [...READONLY_VALUES] })),
    tools: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The filter of this request: the key, and what the client asked (readonly, tools). */
export function filterOf(request: FastifyRequest): ToolFilter {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return {
    scopes: request.actor.scopes,
    agent: request.actor.agent,
    readonly: readonlyAsked(text(query.readonly), header(request, 'x-mcp-readonly')),
    names: namesAsked(text(query.tools)),
  };
}

/**
 * One tool call for this request's caller: refused when the connection may not call it or the
 * clinic's AI is off, else performed through its operation's route.
 */
export async function callForRequest(
  request: FastifyRequest,
  perform: Perform,
  tool: AgentTool | undefined,
  name: string,
  args: Record<string, unknown>,
  platformCallId: string | undefined = header(request, 'x-call-id'),
): Promise<ToolAnswer> {
  const outcome = await runForRequest(request, perform, tool, name, args, platformCallId);
  if (outcome.ok) return tool ? { ...outcome, data: withStartReadings(tool, outcome.data, request.actor.timeZone) } : outcome;
  return { ...outcome, payload: errorPayload(outcome, callableNames(request)) };
}

/** A tool's outcome as the transports answer it: the data, or the error with its next step. */
export type ToolAnswer = Extract<ToolOutcome, { ok: true }> | (Extract<ToolOutcome, { ok: false }> & { payload: ErrorPayload });

/** The names of the tools this request's connection may call: the ones a next step may name. */
export function callableNames(request: FastifyRequest): ReadonlySet<string> {
  return new Set(visibleTools(filterOf(request), toolScopes(request.server)).map((t) => t.name));
}

async function runForRequest(
  request: FastifyRequest,
  perform: Perform,
  tool: AgentTool | undefined,
  name: string,
  args: Record<string, unknown>,
  platformCallId: string | undefined,
): Promise<ToolOutcome> {
  if (!tool) return { ok: false, error: { code: 'not_found', message: `Lo strumento ${name} non esiste.`, details: { tool: name } } };
  if (!request.actor.aiEnabled) {
    const e = aiDisabled();
    return { ok: false, error: { code: e.code, message: e.message, details: e.details } };
  }
  if (!callable(tool, filterOf(request))) {
    return {
      ok: false,
      error: { code: 'forbidden', message: 'Questo strumento non è disponibile su questa connessione.', details: { reason: 'tool_not_available', tool: name } },
    };
  }
  const callId = callIdOf(platformCallId, args, tool);
  // Arguments the call's id stands for when not given (hand_off's callId, hold_slot's holderRef).
  const full = withCallId(tool, args, callId);
  // A date-time without offset is the clinic's local time: its instant is sent (src/agents/local-time.ts).
  const { args: timed, issues } = withClinicTimes(tool, full, request.actor.timeZone, derived(tool).times, checkArguments);
  // The field the call's id stands for, missing: the model is told the name it was shown (`callId`).
  const alias = tool.callIdAs;
  for (const issue of issues) if (alias !== undefined && issue.path === alias && full[alias] === undefined) issue.path = 'callId';
  if (issues.length > 0)
    return {
      ok: false,
      error: { code: 'invalid_request', message: 'La richiesta non è valida: correggi i campi indicati.', details: { in: 'arguments', issues } },
    };
  return runTool(tool, timed, callId, perform, { calls: request.toolCalls, operationTakesKey: operationTakesKey(request.server, tool) });
}

/**
 * One JSON Schema validator for every request's Server. Left to itself, the SDK's Server builds a
 * new Ajv with its formats in its constructor: in a stateless server, once per message, which
 * showed in the process's CPU profile under bench:voice --via=mcp (docs/performance.md). The Server uses it
 * only for elicitation, which these tools never ask for.
 */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

function mcpServerFor(app: FastifyInstance, request: FastifyRequest): Server {
  const { timeZone } = request.actor;
  const server = new Server(
    { name: 'dental-clinic-api', version: VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      jsonSchemaValidator: SCHEMA_VALIDATOR,
      instructions: `Tools of a dental clinic in Italy: speak Italian to callers. Dates and times are in the clinic's time zone (${timeZone}). ${nowLine(timeZone)} Send the call's id as \`callId\` to every tool that takes it: a retry of a tool with the same arguments answers its first result.`,
    },
  );
  const perform = performThroughRoutes(app, request);
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools = visibleTools(filterOf(request), toolScopes(app));
    const names = new Set(tools.map((t) => t.name));
    return {
      tools: tools.map((tool) => {
        const { input, output } = listed(tool, timeZone);
        // No `title`: MCP means it for a person's display (a client shows the name without it), and
        // the voice key's list stays under 40 KB. docs/agents.md shows each tool's title.
        return {
          name: tool.name,
          description: describe(tool, timeZone, names),
          inputSchema: input as { type: 'object' },
          outputSchema: output as { type: 'object' },
          annotations: annotationsOf(tool),
        };
      }),
    };
  });
  server.setRequestHandler(CallToolRequestSchema, async (message) => {
    const { name, arguments: args = {} } = message.params;
    return mcpResult(await callForRequest(request, perform, toolNamed(name), name, args), timeZone);
  });
  return server;
}

/**
 * A `tools/call` whose params are not `{ name: string, arguments?: object }` is answered here with
 * JSON-RPC's invalid params (-32602), every wrong field named: the SDK's Server would parse them
 * with its own schema and answer its parse failure as an internal error (-32603).
 */
function invalidToolCall(body: unknown): { jsonrpc: '2.0'; id: unknown; error: { code: number; message: string; data: { issues: ValidationIssue[] } } } | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const message = body as { method?: unknown; id?: unknown; params?: unknown };
  if (message.method !== 'tools/call' || message.id === undefined) return null;
  const issues: ValidationIssue[] = [];
  const params = message.params;
  if (params === null || typeof params !== 'object' || Array.isArray(params)) {
    issues.push({ path: 'params', message: 'must be an object with `name` and `arguments`' });
  } else {
    const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
    if (typeof name !== 'string' || name.length === 0) issues.push({ path: 'params.name', message: 'must be the name of a tool (a string)' });
    if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args)))
      issues.push({ path: 'params.arguments', message: 'must be an object of the tool’s arguments' });
  }
  if (issues.length === 0) return null;
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: { code: -32602, message: `Invalid params: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, data: { issues } },
  };
}

async function answerMcp(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const badCall = invalidToolCall(request.body);
  if (badCall) return reply.status(200).send(badCall);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  const server = mcpServerFor(app, request);
  await server.connect(transport);
  const headers = new Headers();
  for (const name of ['accept', 'content-type', 'mcp-protocol-version']) {
    const value = header(request, name);
    if (value !== undefined) headers.set(name, value);
  }
  const response = await transport.handleRequest(new Request(`http://mcp.local${request.url}`, { method: 'POST', headers }), { parsedBody: request.body });
  for (const [name, value] of response.headers) if (name !== 'content-length') reply.header(name, value);
  const text = await response.text();
  // No server.close(): with JSON responses the answer above is whole, and this request's Server
  // and transport hold no stream, timer or pending request, so the garbage collector is their
  // close. Closing them built an McpError with its stack trace per message ("Connection closed",
  // for no one), which showed in the server's CPU profile under a load of tool calls.
  // A notification's 202 has no body (and so no content type).
  if (text.length === 0) return reply.status(response.status).removeHeader('content-type').send();
  return reply.status(response.status).send(text);
}

/** 401 on the MCP endpoint says how to authenticate (RFC 6750), as MCP clients expect. */
async function bearerChallenge(_request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  if (reply.statusCode === 401) reply.header('www-authenticate', 'Bearer realm="dental-clinic-api"');
  return payload;
}

export function registerMcpRoutes(app: App, { documents, mcpAllowedOrigins }: Pick<Config, 'documents' | 'mcpAllowedOrigins'>): void {
  const config = {
    scopes: [],
    aiPerToolCall: true as const,
    ownWindows: (request: FastifyRequest, limits: RateLimits) => agentMessageRules(limits, request.auth.keyId),
    reasons: { forbidden: ['origin_not_allowed'] },
  };
  // DNS rebinding (src/http/browser-origin.ts): a web page of another origin is refused.
  const preHandler = async (request: FastifyRequest) => {
    const origin = header(request, 'origin');
    if (!browserOriginAllowed(origin, documents.publicUrl, mcpAllowedOrigins))
      throw ApiError.forbidden('origin_not_allowed', { origin }, 'Una pagina web di questa origine non può chiamare il server MCP.');
  };
  // The body is JSON-RPC, judged by the MCP server itself (every tool call checks its arguments).
  app.post(
    '/mcp',
    { schema: { hide: true, querystring: McpQuery, body: Type.Unknown() }, config: { ...config, bodyIssues: false }, preHandler, onSend: bearerChallenge },
    async (request, reply) => answerMcp(app as unknown as FastifyInstance, request, reply),
  );
  // Stateless: no server-sent event stream to open, no session to end.
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      schema: { hide: true },
      config,
      preHandler,
      onSend: bearerChallenge,
      handler: async (_request, reply) =>
        reply
          .status(405)
          .header('allow', 'POST')
          .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP server is stateless (POST only).' }, id: null }),
    });
  }
}

/** `/.well-known/mcp.json` (public): where the endpoint is, its transport and its authentication. */
export function registerMcpDiscovery(scope: FastifyInstance): void {
  scope.get('/.well-known/mcp.json', { schema: { hide: true } }, async () => ({
    name: 'dental-clinic-api',
    version: VERSION,
    description: 'Dental Clinic Management API tools for AI voice and chat agents (Model Context Protocol).',
    endpoint: '/mcp',
    transport: { type: 'streamable-http', stateless: true, methods: ['POST'], jsonResponse: true },
    authentication: {
      type: 'bearer',
      header: 'Authorization',
      format: 'Bearer dcm_live_… or dcm_test_… (an API key of the clinic; a voice_agent or chat_bot key for agents)',
    },
    options: {
      readonly: 'Query `?readonly=true` or header `X-MCP-Readonly: true`: only read-only tools are listed and callable.',
      tools: 'Query `?tools=a,b`: only these tools.',
      callId: 'Header `X-Call-Id` (or the `callId` argument): a retried writing tool answers its first result.',
      origin:
        'A web page may call only from the service origin, one in MCP_ALLOWED_ORIGINS, or loopback when PUBLIC_URL is unset: any other `Origin` is 403 origin_not_allowed (DNS rebinding).',
    },
    restToolPacks: '/v1/agent-tools?platform=openai|vapi|retell|elevenlabs',
  }));
}

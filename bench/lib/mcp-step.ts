/**
 * One voice step through /mcp as Vapi sends it: a new MCP connection (initialize), one tool call,
 * closed. Two clients send the same four requests (initialize; the initialized notification; a GET
 * for the server's event stream, answered 405 by this stateless server, sent without waiting for
 * it as the SDK does; the tool call):
 * - `sdk`: the SDK's own Client and StreamableHTTPClientTransport, as a platform runs it;
 * - `light`: the four requests over undici, the answers read as JSON. The SDK's client costs about
 *   as much CPU per step as the server's whole answer (bench:mcp-cost: 4-8 ms per step on a
 *   2-core machine), CPU a platform's client spends on its own machines, and that here would be
 *   taken from the server and the database it measures. A load generator should be light, as
 *   autocannon is for REST.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { request } from 'undici';
import { ERROR_STATUS } from '../../src/core/errors.js';

/**
 * How a phone call reaches the server: REST requests; MCP with one session per phone call
 * (`mcp`: initialize when the call connects, then one request per tool, as a platform that keeps
 * its MCP connection for the call does); MCP with a new session per tool call (`mcp-per-tool`:
 * initialize before every tool, as Vapi opens one per call of a tool).
 */
export const ROADS = ['rest', 'mcp', 'mcp-per-tool'] as const;
export type Road = (typeof ROADS)[number];
type McpClientKind = 'sdk' | 'light';

/** The `--…-client=` option of a benchmark: `sdk` or `light`, `fallback` when absent; anything else stops the run. */
export function mcpClientKind(option: string | undefined, fallback: McpClientKind): McpClientKind {
  if (option === undefined) return fallback;
  if (option !== 'sdk' && option !== 'light') throw new Error(`an MCP client is sdk or light, not ${option}`);
  return option;
}

/** Status as REST would say it: 201 for a write's success, 200 for a read's, an error's by its code (the API's own table). */
const STATUS: Record<string, number> = ERROR_STATUS;
const WRITES = new Set(['hold_slot', 'book_appointment', 'log_call']);

interface ToolAnswer {
  isError?: boolean;
  content?: { text: string }[];
  structuredContent?: unknown;
}

function stepOutcome<T>(tool: string, result: ToolAnswer): { status: number; body: T } {
  if (result.isError) {
    const text = result.content?.[0]?.text ?? '';
    const code = /\(code: ([a-z_]+)\)/.exec(text)?.[1] ?? 'internal_error';
    return { status: STATUS[code] ?? 500, body: {} as T };
  }
  return { status: WRITES.has(tool) ? 201 : 200, body: result.structuredContent as T };
}

/**
 * One validator for every connection: the SDK's Client otherwise builds a new Ajv per instance,
 * CPU this process would take from the server and the database on a two-core machine (a
 * platform's client runs elsewhere).
 */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/** An MCP session open for one phone call: its tool calls, then close. */
export interface McpSession {
  call<T>(tool: string, args: Record<string, unknown>): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

async function sdkSession(url: string, token: string): Promise<McpSession> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'bench-voice', version: '1.0.0' }, { jsonSchemaValidator: SCHEMA_VALIDATOR });
  await client.connect(transport);
  return {
    call: async <T>(tool: string, args: Record<string, unknown>) =>
      stepOutcome<T>(tool, (await client.callTool({ name: tool, arguments: args })) as ToolAnswer),
    close: () => client.close(),
  };
}

/** A JSON-RPC message POSTed as the SDK's transport posts it; the parsed answer (null for 202). */
async function post(url: string, headers: Record<string, string>, message: object): Promise<{ result?: unknown; error?: { message: string } } | null> {
  const res = await request(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', ...message }) });
  const text = await res.body.text();
  if (res.statusCode === 202) return null;
  if (res.statusCode !== 200) throw new Error(`MCP ${JSON.stringify(message).slice(0, 60)}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

async function lightSession(url: string, token: string): Promise<McpSession> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const init = await post(url, headers, {
    id: 0,
    method: 'initialize',
    params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'bench-voice', version: '1.0.0' } },
  });
  const version = (init?.result as { protocolVersion?: string } | undefined)?.protocolVersion;
  if (!version) throw new Error(`MCP initialize: ${JSON.stringify(init).slice(0, 200)}`);
  const session = { ...headers, 'mcp-protocol-version': version };
  await post(url, session, { method: 'notifications/initialized' });
  // The SDK opens the server's event stream after the notification without waiting for it.
  void request(url, { method: 'GET', headers: { authorization: headers.authorization!, accept: 'text/event-stream', 'mcp-protocol-version': version } })
    .then((res) => res.body.dump())
    .catch(() => undefined);
  let id = 0;
  return {
    async call<T>(tool: string, args: Record<string, unknown>) {
      const answer = await post(url, session, { id: ++id, method: 'tools/call', params: { name: tool, arguments: args } });
      if (!answer || answer.error) throw new Error(`MCP tools/call ${tool}: ${JSON.stringify(answer).slice(0, 200)}`);
      return stepOutcome<T>(tool, answer.result as ToolAnswer);
    },
    close: async () => undefined,
  };
}

/** A new MCP session (initialize and its notification) with either client. */
export function mcpSession(url: string, token: string, client: McpClientKind = 'sdk'): Promise<McpSession> {
  return client === 'light' ? lightSession(url, token) : sdkSession(url, token);
}

/** One tool call on a session of its own: opened, called, closed. */
export async function mcpStep<T>(
  url: string,
  token: string,
  tool: string,
  args: Record<string, unknown>,
  client: McpClientKind = 'sdk',
): Promise<{ status: number; body: T }> {
  const session = await mcpSession(url, token, client);
  try {
    return await session.call<T>(tool, args);
  } finally {
    await session.close();
  }
}

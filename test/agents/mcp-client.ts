/**
 * The MCP SDK's own client over streamable HTTP, a new connection per call as Vapi opens one:
 * what a platform we did not write sends to /mcp.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface McpOptions {
  /** `?readonly=true&tools=a,b` */
  query?: string;
  headers?: Record<string, string>;
}

interface ToolResult {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: any;
}

async function connected<T>(url: string, token: string, options: McpOptions, use: (client: Client) => Promise<T>): Promise<T> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp${options.query ? `?${options.query}` : ''}`), {
    requestInit: { headers: { authorization: `Bearer ${token}`, ...options.headers } },
  });
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(transport);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

export function listTools(url: string, token: string, options: McpOptions = {}) {
  return connected(url, token, options, async (client) => (await client.listTools()).tools);
}

export function callTool(url: string, token: string, name: string, args: Record<string, unknown>, options: McpOptions = {}): Promise<ToolResult> {
  return connected(url, token, options, async (client) => (await client.callTool({ name, arguments: args })) as ToolResult);
}

/** The error object of an `isError` result (its second line). */
export function toolError(result: ToolResult): { code: string; message: string; nextStep: string; details: any } {
  if (!result.isError) throw new Error(`expected an error, got ${result.content[0]?.text}`);
  return JSON.parse(result.content[0]!.text.split('\n').slice(1).join('\n'));
}

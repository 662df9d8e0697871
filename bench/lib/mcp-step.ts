/** One voice step through /mcp as Vapi sends it: a new MCP connection (initialize), one tool call, closed. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';

export type Road = 'rest' | 'mcp';

/** Status as REST would say it: 201 for a write's success, 200 for a read's, 4xx by the error's code. */
const STATUS: Record<string, number> = { invalid_request: 400, forbidden: 403, not_found: 404, no_availability: 409, conflict: 409, rate_limited: 429 };
const WRITES = new Set(['hold_slot', 'book_appointment', 'log_call']);

/**
 * One validator for every connection: the SDK's Client otherwise builds a new Ajv per instance,
 * CPU this process would take from the server and the database on a two-core machine (a
 * platform's client runs elsewhere).
 */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

export async function mcpStep<T>(url: string, token: string, tool: string, args: Record<string, unknown>): Promise<{ status: number; body: T }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'bench-voice', version: '1.0.0' }, { jsonSchemaValidator: SCHEMA_VALIDATOR });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: tool, arguments: args });
    if (result.isError) {
      const text = (result.content as { text: string }[])[0]?.text ?? '';
      const code = /\(code: ([a-z_]+)\)/.exec(text)?.[1] ?? 'internal_error';
      return { status: STATUS[code] ?? 500, body: {} as T };
    }
    return { status: WRITES.has(tool) ? 201 : 200, body: result.structuredContent as T };
  } finally {
    await client.close();
  }
}

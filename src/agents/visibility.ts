/**
 * Which tools a connection sees: what the key's scopes allow, the agent's own
 * set for an agent key, only read-only tools in read-only mode, and the names asked for.
 */
import type { AgentKind } from '../core/actor.js';
import { AGENT_TOOLS } from './registry.js';
import { AUDIENCE_OF, readOnly, type AgentTool } from './tool.js';

export interface ToolFilter {
  scopes: ReadonlySet<string>;
  agent: AgentKind;
  readonly: boolean;
  /** `?tools=a,b`: only these (null: all). */
  names: ReadonlySet<string> | null;
}

/** Whether the connection may call the tool at all (scopes aside: the operation itself checks them). */
export function callable(tool: AgentTool, filter: ToolFilter): boolean {
  const audience = AUDIENCE_OF[filter.agent];
  if (audience !== null && tool.audience !== 'all' && tool.audience !== audience) return false;
  if (filter.readonly && !readOnly(tool)) return false;
  return filter.names === null || filter.names.has(tool.name);
}

/** The tools listed: callable, and allowed by the key's scopes (`scopesOf` gives the operation's). */
export function visibleTools(filter: ToolFilter, scopesOf: (tool: AgentTool) => readonly string[]): AgentTool[] {
  return AGENT_TOOLS.filter((tool) => callable(tool, filter) && scopesOf(tool).every((s) => filter.scopes.has(s)));
}

/** The spellings of yes and no a client may send for `readonly`, in the query or the header alike. */
export const READONLY_VALUES = ['true', 'false', '1', '0'] as const;

const yes = (value: string | undefined) => value !== undefined && ['true', '1'].includes(value.trim().toLowerCase());

/** `?readonly=true` or `X-MCP-Readonly: true` (`1` as well). */
export function readonlyAsked(query: string | undefined, header: string | undefined): boolean {
  return yes(query) || yes(header);
}

/** `?tools=a,b` (unknown names are ignored, so a list written for a newer server still works). */
export function namesAsked(value: string | undefined): ReadonlySet<string> | null {
  if (value === undefined || value.trim() === '') return null;
  return new Set(
    value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

/**
 * The back-office commands: each a name, a one-line help, its options and a run function
 * calling the same service functions as the back-office API. Modules add theirs in
 * src/cli/commands/<area>.ts and list them here.
 */
import type { AppContext } from '../context.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  description: string;
  required?: boolean;
  multiple?: boolean;
}

export interface Command {
  name: string;
  summary: string;
  options: Record<string, OptionSpec>;
  /** Parses its own arguments (commands whose options depend on the operation). */
  passThrough?(args: string[]): Promise<void>;
  run(ctx: AppContext, args: Record<string, string | boolean | string[] | undefined>, json: boolean): Promise<void>;
}

/**
 * The named commands: each a name, a one-line help, its options (every field, with an example
 * value) and a run function. Each goes through a back-office operation (src/cli/admin-api.ts),
 * so it works the same on a running service and on a database the CLI opened itself. Areas add
 * theirs in src/cli/commands/<area>.ts and list them in src/cli/index.ts.
 */
import type { Connection } from './connect.js';

export interface OptionSpec {
  description: string;
  /** A realistic value, shown in the help's example. */
  example?: string;
  required?: boolean;
  /** A flag without a value. */
  flag?: boolean;
}

export type Args = Record<string, string | boolean | undefined>;

export interface Command {
  name: string;
  summary: string;
  options: Record<string, OptionSpec>;
  /** Extra lines for the help (what the command prints, what it needs). */
  notes?: string[];
  run(connection: Connection, args: Args, json: boolean): Promise<void>;
}

export const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
export const list = (v: unknown) => (typeof v === 'string' ? v.split(',').filter(Boolean) : undefined);

/**
 * `npx dental-clinic <command> [options]` (or `npm run cli -- …`): the back office from a
 * terminal, parsed by commander. Output is a table (at most 100 columns) or a record, or JSON
 * with --json; an error is one line on stderr (with --json, the API's error envelope as JSON)
 * and a non-zero exit: 2 for a wrong command line, 1 otherwise. Where the calls go (a running
 * service, or the database itself): src/cli/connect.ts.
 */
import { Command as Program, CommanderError, Option } from 'commander';
import { AdminCallError, commandName, optionName, type AdminOperation } from './admin-api.js';
import type { Args, Command } from './commands.js';
import { bulkCommands } from './commands/bulk.js';
import { operationHelp, runOperation } from './commands/call.js';
import { tenantCommands } from './commands/tenants.js';
import { webhookCommands } from './commands/webhooks.js';
import { connect, offlineOperations, type Connection } from './connect.js';
import { printError, UsageError } from './output.js';

const commands: Command[] = [...tenantCommands, ...bulkCommands, ...webhookCommands];
// `trigger <event-type>` is `trigger --type <event-type>` (the spelling of Stripe's CLI).
const argv = ((args) => (args[0] === 'trigger' && args[1] && !args[1].startsWith('-') ? ['trigger', '--type', ...args.slice(1)] : args))(process.argv.slice(2));
const json = argv.includes('--json');

function exit(error: unknown): never {
  if (error instanceof AdminCallError) {
    printError(error.error, json);
    process.exit(1);
  }
  const usage = error instanceof UsageError;
  printError({ code: usage ? 'usage' : 'cli', message: (error as Error).message }, json);
  process.exit(usage ? 2 : 1);
}

/** Runs a command on a connection it opens and closes. */
async function withConnection(run: (c: Connection) => Promise<void>): Promise<void> {
  const c = await connect();
  try {
    await run(c);
  } finally {
    await c.close();
  }
}

const camel = (name: string) => name.replace(/-([a-z])/g, (_, ch: string) => ch.toUpperCase());
const argsOf = (names: string[], opts: Record<string, unknown>): Args =>
  Object.fromEntries(names.map((n) => [n, opts[camel(n)] as string | boolean | undefined]));

function exampleOf(c: Command): string {
  const shown = Object.entries(c.options).filter(([, o]) => o.required || o.flag === undefined);
  const words = shown
    .filter(([, o]) => o.required)
    .concat(shown.filter(([, o]) => !o.required).slice(0, 1))
    .map(([k, o]) => `--${k} ${/\s/.test(o.example ?? '') ? `'${o.example}'` : (o.example ?? '<value>')}`);
  return ['', 'Example:', `  dental-clinic ${c.name} ${words.join(' ')}`.trimEnd(), ...(c.notes ?? [])].join('\n');
}

function groupOf(program: Program, words: string[]): Program {
  let parent = program;
  for (const w of words) parent = parent.commands.find((c) => c.name() === w) ?? parent.command(w).description(`${w} commands`);
  return parent;
}

function build(operations: AdminOperation[] | null): Program {
  const program = new Program('dental-clinic')
    .description('The back office of the Dental Clinic Management API from a terminal.')
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({ outputError: () => {} });
  for (const c of commands) {
    const words = c.name.split(' ');
    const sub = groupOf(program, words.slice(0, -1))
      .command(words.at(-1)!)
      .description(c.summary)
      .exitOverride()
      .configureOutput({ outputError: () => {} });
    for (const [name, o] of Object.entries(c.options)) {
      const option = new Option(o.flag ? `--${name}` : `--${name} <value>`, o.required ? `${o.description} (required)` : o.description);
      if (o.required) option.makeOptionMandatory();
      sub.addOption(option);
    }
    sub.option('--json', 'JSON output, errors included');
    sub.addHelpText('after', exampleOf(c));
    sub.action((opts: Record<string, unknown>) => withConnection((conn) => c.run(conn, argsOf(Object.keys(c.options), opts), !!opts.json)));
  }
  const call = program.command('call').description('Run any back-office operation (dental-clinic --help lists them)').exitOverride();
  for (const op of operations ?? []) {
    const sub = call
      .command(commandName(op.operationId))
      .description(op.summary)
      .exitOverride()
      .configureOutput({ outputError: () => {} });
    const names = [...new Set([...op.pathParams, ...op.queryParams].map((p) => optionName(op, p)))];
    for (const p of op.pathParams) sub.addOption(new Option(`--${optionName(op, p)} <value>`, `${p} (path)`).makeOptionMandatory());
    for (const p of op.queryParams) sub.option(`--${optionName(op, p)} <value>`, `${p} (query)`);
    if (op.hasBody) sub.option('--body <json>', 'The request body: JSON, or @file.json');
    sub.option('--json', 'JSON output, errors included');
    sub.addHelpText('after', `\n${operationHelp(op)}`);
    sub.action((opts: Record<string, unknown>) =>
      withConnection((conn) => runOperation(conn, op, { ...argsOf(names, opts), body: opts.body as string | undefined }, !!opts.json)),
    );
  }
  return program;
}

function usage(operations: AdminOperation[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const opWidth = Math.max(...operations.map((o) => commandName(o.operationId).length));
  return [
    'Usage: dental-clinic <command> [options] [--json]',
    '',
    'Commands (dental-clinic <command> --help lists its options with an example):',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Back-office operations (dental-clinic call <operation> --help lists its fields with an example):',
    ...operations.map((o) => `  ${commandName(o.operationId).padEnd(opWidth)}  ${o.method.padEnd(6)} ${o.summary}`),
    '',
    'Every command takes --json (JSON output, errors included) and --help.',
    'Calls go to the service running on DATA_DIR (or at DCM_URL, with ADMIN_TOKEN) when there is one,',
    'otherwise to the database of DATABASE_URL, or the embedded one in DATA_DIR.',
  ].join('\n');
}

async function main(): Promise<void> {
  if (argv.length === 0 || (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h'))) {
    console.log(usage(await offlineOperations()));
    return;
  }
  // The operations are listed (a build of the routes, about a second) only for `call`.
  const program = build(argv[0] === 'call' ? await offlineOperations() : null);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return; // --help, --version
      exit(new UsageError(`${error.message.replace(/^error: /, '')}. Run with --help.`));
    }
    exit(error);
  }
}

main().catch(exit);

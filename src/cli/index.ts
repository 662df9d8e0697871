/**
 * `npx dental-clinic <command> [options]` (or `npm run cli -- …`): the back office from a
 * terminal. Output is a table, or JSON with --json; an error is one line on stderr and a
 * non-zero exit.
 */
import { parseArgs } from 'node:util';
import { closeContext } from '../bootstrap.js';
import { ApiError } from '../core/errors.js';
import { commandName, type AdminOperation } from './admin-api.js';
import type { Command } from './commands.js';
import { bulkCommands } from './commands/bulk.js';
import { callCommand, listAdminOperations } from './commands/call.js';
import { tenantCommands } from './commands/tenants.js';
import { describeApiError, fail, openContext } from './support.js';

const commands: Command[] = [...tenantCommands, ...bulkCommands, callCommand];

function usage(operations: AdminOperation[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const opWidth = Math.max(...operations.map((o) => commandName(o.operationId).length));
  return [
    'Usage: dental-clinic <command> [options] [--json]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Back-office operations (dental-clinic call <operation> --help for its options):',
    ...operations.map((o) => `  ${commandName(o.operationId).padEnd(opWidth)}  ${o.method.padEnd(6)} ${o.summary}`),
    '',
    'Every command takes --json (machine-readable output) and --help.',
    'The database is the one of DATABASE_URL, or the embedded one in DATA_DIR.',
  ].join('\n');
}

function commandHelp(c: Command): string {
  const lines = Object.entries(c.options).map(
    ([name, o]) => `  --${name}${o.type === 'string' ? ' <value>' : ''}  ${o.description}${o.required ? ' (required)' : ''}`,
  );
  return [`Usage: dental-clinic ${c.name} [options] [--json]`, '', c.summary, '', ...(lines.length ? ['Options:', ...lines] : ['No options.'])].join('\n');
}

async function main(argv: string[]): Promise<void> {
  const words = argv.filter((a) => !a.startsWith('-'));
  const command = [...commands]
    .sort((a, b) => b.name.split(' ').length - a.name.split(' ').length)
    .find((c) => c.name.split(' ').every((w, i) => words[i] === w));
  if (!command) {
    if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
      console.log(usage(await listAdminOperations()));
      return;
    }
    fail(`unknown command "${words.join(' ')}". Run with --help to list the commands.`, 2);
  }
  const rest = argv.slice(argv.indexOf(command.name.split(' ').at(-1)!) + 1);
  if (command.passThrough) {
    await command.passThrough(rest);
    return;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(commandHelp(command));
    return;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: {
        ...Object.fromEntries(Object.entries(command.options).map(([k, o]) => [k, { type: o.type, multiple: o.multiple ?? false }])),
        json: { type: 'boolean' },
      },
      allowPositionals: false,
      strict: true,
    });
  } catch (error) {
    fail(`${(error as Error).message}. Run "dental-clinic ${command.name} --help".`, 2);
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
  for (const [name, o] of Object.entries(command.options)) {
    if (o.required && values[name] === undefined) fail(`--${name} is required. Run "dental-clinic ${command.name} --help".`, 2);
  }

  const ctx = await openContext();
  try {
    await command.run(ctx, values, !!values.json);
  } catch (error) {
    if (error instanceof ApiError) fail(describeApiError(error.code, error.message, error.details));
    fail((error as Error).message);
  } finally {
    await closeContext(ctx);
  }
}

main(process.argv.slice(2)).catch((error) => fail((error as Error).message));

import { parseArgs } from 'node:util';
import { ApiClient, ApiError, ConnectionError } from './api-client';
import { Command, OptionSpecs, OptionValues, UsageError } from './command';
import { COMMANDS } from './commands';
import { problemLine } from './problem-line';

export const DEFAULT_URL = 'http://127.0.0.1:3000';

const GLOBAL_OPTIONS: OptionSpecs = {
  url: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean' },
  force: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

const GLOBAL_HELP = `Options for every command:
  --url URL       administrative API (env CA_MANAGER_URL, default ${DEFAULT_URL})
  --token JWT     bearer token (env CA_MANAGER_TOKEN)
  --json          the API's JSON answer, for scripts, instead of tables
  --force         replace existing files (keys and certificates are written with mode 0600)`;

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'Usage: npm run -s cli -- <command> [arguments] [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    GLOBAL_HELP,
    '',
    "Run 'npm run -s cli -- <command> --help' for a command's arguments.",
  ].join('\n');
}

const commandHelp = (command: Command) =>
  `Usage: npm run -s cli -- ${command.name} ${command.usage}\n\n${command.summary}\n\n${GLOBAL_HELP}`;

/** The first two words that are not options name the command (options may come anywhere). */
function findCommand(argv: string[]): Command | undefined {
  const everyOption = Object.assign({}, GLOBAL_OPTIONS, ...COMMANDS.map((c) => c.options)) as OptionSpecs;
  const { positionals } = parseArgs({
    args: argv,
    options: everyOption,
    strict: false,
    allowPositionals: true,
  });
  const name = positionals.slice(0, 2).join(' ');
  return COMMANDS.find((c) => c.name === name);
}

/**
 * Runs one command line; resolves with the exit code: 0 done, 1 the API refused or could not be
 * reached (one line on stderr), 2 the command line itself is wrong.
 */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  const command = findCommand(argv);
  if (!command) {
    const asked = argv.includes('--help') || argv.includes('-h') || argv.length === 0;
    (asked ? io.out : io.err)(
      asked ? overview() : `error: unknown command '${argv.join(' ')}'\n\n${overview()}`,
    );
    return asked ? 0 : 2;
  }
  let values: OptionValues;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
    }));
  } catch (error) {
    io.err(`error: ${(error as Error).message}\n\n${commandHelp(command)}`);
    return 2;
  }
  if (values.help) {
    io.out(commandHelp(command));
    return 0;
  }
  const token = (values.token as string | undefined) ?? env.CA_MANAGER_TOKEN;
  if (!token) {
    io.err('error: no token: pass --token or set CA_MANAGER_TOKEN (npm run -s token -- --tenant <uuid>)');
    return 2;
  }
  const url = (values.url as string | undefined) ?? env.CA_MANAGER_URL ?? DEFAULT_URL;
  try {
    await command.run({
      api: new ApiClient(url, token),
      values,
      positionals: positionals.slice(2),
      json: values.json === true,
      force: values.force === true,
      print: io.out,
    });
    return 0;
  } catch (error) {
    if (error instanceof ApiError) io.err(problemLine(error.status, error.problem));
    else if (error instanceof UsageError) io.err(`error: ${error.message}\n\n${commandHelp(command)}`);
    else if (error instanceof ConnectionError) io.err(`error: ${error.message}`);
    else io.err(`error: ${(error as Error).message}`);
    return error instanceof UsageError ? 2 : 1;
  }
}

/**
 * `npm run ops -- <command>` (docs/api.md#operator-commands): operator commands on a running system.
 * With DATABASE_URL it works on that Postgres's gateway schema directly; in embedded mode it asks
 * the running process through its operator endpoint (DATA_DIR/ops.json), since that process holds
 * the PGlite files. `expiring` asks issuance (over NATS with DATABASE_URL, in process otherwise).
 * Exit codes: 0 done, 1 failed, 2 bad arguments. See docs/operations.md.
 */
import 'reflect-metadata';
import { resolve } from 'node:path';
import {
  ConfigError,
  loadConfig,
  loadNatsClientSettings,
  makeNatsServiceKeys,
  natsNkeyPublicVariable,
  natsNkeySeedVariables,
} from '@ca/config';
import type { IssuanceApi } from '@ca/contracts';
import { OPS_USAGE, parseOpsCommand } from '@ca/gateway/commands';
import { type OpsOutput, UsageError, runThroughOperatorEndpoint } from '@ca/operations';

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'custody') return custody(argv.slice(1));
  if (argv[0] === 'events') return events(argv.slice(1));
  if (argv[0] === 'nats-keys') return natsKeys(argv.slice(1));
  let command;
  try {
    command = parseOpsCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`ops: ${error.message} (npm run ops -- help)\n`);
    return 2;
  }
  if (command.kind === 'help') {
    process.stdout.write(`${OPS_USAGE}\n`);
    return 0;
  }
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`ops: configuration error: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (!config.databaseUrl) {
    return runThroughOperatorEndpoint(config.dataDir, argv, process);
  }
  if (command.kind === 'expiring') return runExpiringOverNats(command, config.natsUrl);
  const { openGatewayDatabase, GatewayOperations } = await import('@ca/gateway/commands');
  const dataSource = await openGatewayDatabase(config.databaseUrl, 2);
  try {
    const operations = new GatewayOperations(dataSource, {
      defaultCertificateLimit: config.defaultCertificateLimit,
    });
    return await operations.run(command, {
      out: (line) => write(process.stdout, line),
      err: (line) => write(process.stderr, line),
    });
  } finally {
    await dataSource.destroy();
  }
}

/** Distributed mode: the expiry facts are issuance's; ask it over NATS (never its schema). */
async function runExpiringOverNats(
  command: { days: number; json: boolean },
  natsUrl: string | undefined,
): Promise<number> {
  if (!natsUrl) {
    process.stderr.write('ops: expiring needs NATS_URL to reach issuance (with DATABASE_URL set)\n');
    return 2;
  }
  const { openMessaging } = await import('@ca/messaging');
  const { runExpiringReport } = await import('@ca/gateway/commands');
  // Run beside the gateway (its container or pod): as the gateway's NATS user when its password is
  // set, whose allow-list has the admin requests (docs/security.md, "The bus").
  const messaging = await openMessaging({ natsUrl, name: 'ops', ...loadNatsClientSettings('gateway') });
  const issuance = messaging.rpcClient<IssuanceApi>();
  try {
    return await runExpiringReport(command, issuance, {
      out: (line) => write(process.stdout, line),
      err: (line) => write(process.stderr, line),
    });
  } finally {
    await issuance.close();
    await messaging.close();
  }
}

/**
 * `custody …` is issuance's (it owns the CA keys): against DATABASE_URL it runs issuance's code on
 * issuance's schema from here; in embedded mode the running process runs it. See docs/operations.md.
 */
async function custody(args: string[]): Promise<number> {
  const { CUSTODY_USAGE } = await import('@ca/issuance');
  if (args.length === 0 || args[0] === 'help' || args[0] === '--help') {
    process.stdout.write(`${CUSTODY_USAGE}\n`);
    return 0;
  }
  const loaded = configAndStreams();
  if (!loaded) return 2;
  const { config, io } = loaded;
  if (config.databaseUrl) {
    const { runCustodyCommandOnDatabase } = await import('@ca/issuance');
    return runCustodyCommandOnDatabase(config, args, io, process.env.CA_KEK_NEW);
  }
  // The running process reads the file, so it gets an absolute name; the KEK itself never travels.
  const absolute = args.map((arg, i) =>
    args[i - 1] === '--new-kek-file'
      ? resolve(arg)
      : arg.startsWith('--new-kek-file=')
        ? `--new-kek-file=${resolve(arg.slice(15))}`
        : arg,
  );
  if (process.env.CA_KEK_NEW !== undefined) {
    await io.err(
      'ops: in embedded mode give the new KEK with --new-kek-file FILE (CA_KEK_NEW is read with DATABASE_URL only)',
    );
    return 2;
  }
  return runThroughOperatorEndpoint(config.dataDir, ['custody', ...absolute], process);
}

/**
 * `events dead-letters …`: the consuming services' dead-letter tables. Against DATABASE_URL it
 * works on their schemas directly; in embedded mode the running process does. See docs/operations.md.
 */
async function events(args: string[]): Promise<number> {
  const { DEAD_LETTER_USAGE, runDeadLetterCommand } = await import('@ca/messaging');
  if (args.length === 0 || args[0] === 'help' || args[0] === '--help') {
    process.stdout.write(`${DEAD_LETTER_USAGE}\n`);
    return 0;
  }
  const loaded = configAndStreams();
  if (!loaded) return 2;
  const { config, io } = loaded;
  if (!config.databaseUrl) {
    return runThroughOperatorEndpoint(config.dataDir, ['events', ...args], process);
  }
  const { DataSource } = await import('typeorm');
  const dataSource = await new DataSource({
    type: 'postgres',
    url: config.databaseUrl,
    poolSize: 2,
  }).initialize();
  try {
    return await runDeadLetterCommand(args, dataSource, io);
  } finally {
    await dataSource.destroy();
  }
}

/**
 * `nats-keys [--dir DIR]`: a fresh NKey pair per service (docs/security.md, "NKeys"). Prints the
 * lines of an env file: the server's public keys (NATS_NKEY_<APP>) and, without --dir, each
 * service's seed (NATS_NKEY_SEED_<APP>); with --dir the seeds go to DIR/<app>.nk (mode 0600, a new
 * directory) and the lines name those files (NATS_NKEY_SEED_FILE_<APP>). Needs no running system.
 */
async function natsKeys(args: string[]): Promise<number> {
  const usage = 'usage: npm run ops -- nats-keys [--dir DIR]';
  if (args[0] === 'help' || args[0] === '--help') {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const dir = args[0] === '--dir' && args.length === 2 ? resolve(args[1]) : undefined;
  if (args.length > 0 && !dir) {
    process.stderr.write(`ops: ${usage}\n`);
    return 2;
  }
  const { mkdirSync, writeFileSync } = await import('node:fs');
  if (dir) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lines = [
    '# NATS NKeys (docs/security.md, "NKeys"): nats-server gets every NATS_NKEY_<APP> (public),',
    '# each service only its own seed. docker compose: NATS_CONFIG_FILE selects the configuration.',
    'NATS_CONFIG_FILE=nats-server-nkeys.conf',
  ];
  for (const key of makeNatsServiceKeys()) {
    const seedVariables = natsNkeySeedVariables(key.app);
    lines.push(`${natsNkeyPublicVariable(key.app)}=${key.publicKey}`);
    if (dir) {
      const file = `${dir}/${key.app}.nk`;
      // wx: never overwrite a key a service may still be using.
      writeFileSync(file, `${key.seed}\n`, { mode: 0o600, flag: 'wx' });
      lines.push(`${seedVariables.file}=${file}`);
    } else {
      lines.push(`${seedVariables.seed}=${key.seed}`);
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

function write(stream: NodeJS.WriteStream, line: string): Promise<void> | void {
  if (!stream.write(`${line}\n`)) return new Promise((resolve) => stream.once('drain', () => resolve()));
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`ops: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);

/** The configuration and the output streams of a command that reaches a running system; undefined after reporting a bad configuration. */
function configAndStreams():
  | {
      config: ReturnType<typeof loadConfig>;
      io: OpsOutput;
    }
  | undefined {
  try {
    return {
      config: loadConfig(),
      io: {
        out: (line: string) => write(process.stdout, line),
        err: (line: string) => write(process.stderr, line),
      },
    };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`ops: configuration error: ${error.message}\n`);
    return undefined;
  }
}

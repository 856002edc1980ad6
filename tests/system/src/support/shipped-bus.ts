import { ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePorts, listening } from '@ca/test-support';

/**
 * The bus and database roles we ship, for the system suites' real-services variant when
 * TEST_SHIPPED_BUS=1 (CI): nats-server run from deploy/nats/nats-server.conf with a password per
 * service, and a role per service from deploy/postgres/init-roles.sql. A permission missing there
 * fails these suites, not a customer.
 */
export const shippedBusWanted = () => process.env.TEST_SHIPPED_BUS === '1';

const ROOT = resolve(__dirname, '../../../..');
const NATS_CONFIG = join(ROOT, 'deploy/nats/nats-server.conf');
const INIT_ROLES_SQL = join(ROOT, 'deploy/postgres/init-roles.sql');
const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
const SERVICES = ['gateway', 'issuance', 'revocation', 'ocsp-responder', 'acme', 'webhooks'] as const;
const SCHEMA_OF: Record<string, string> = { 'ocsp-responder': 'ocsp' };
const schemaOf = (service: string) => SCHEMA_OF[service] ?? service;

export interface ShippedBus {
  natsUrl: string;
  /** The server's JetStream store (what an attacker with the disk would read). */
  storeDir: string;
  /** Per-service credentials and database URL, for startEmbeddedSystem's `perService`. */
  perService: {
    messaging(service: string): { user: string; pass: string; inboxPrefix: string };
    databaseUrl(service: string): string;
  };
  /** The server's permission refusals so far (a missing permission shows here first). */
  violations(): string[];
  stop(): Promise<void>;
}

/** Starts nats-server from the shipped configuration and gives `databaseUrl` the shipped roles. */
export async function startShippedBus(databaseUrl: string): Promise<ShippedBus> {
  // Led by a letter: nats-server parses a variable's value, and one led by a digit as a number.
  const passwords = Object.fromEntries(SERVICES.map((s) => [s, `p${randomBytes(18).toString('hex')}`]));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
  for (const service of SERVICES)
    env[`NATS_PASSWORD_${service.toUpperCase().replace(/-/g, '_')}`] = passwords[service];
  const [port] = await freePorts(1);
  const store = mkdtempSync(join(tmpdir(), 'ca-shipped-nats-'));
  const server = spawn(
    NATS_SERVER,
    ['-c', NATS_CONFIG, '-a', '127.0.0.1', '-p', String(port), '-sd', store],
    {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const log: string[] = [];
  server.stderr?.on('data', (chunk: Buffer) => log.push(...chunk.toString('utf8').split('\n')));
  const roles = await ServiceRoles.create(databaseUrl).catch(async (error: unknown) => {
    await stopServer(server, store);
    throw error;
  });
  for (let i = 0; !(await listening(port)); i++) {
    if (i > 100 || server.exitCode !== null) {
      await stopServer(server, store);
      await roles.drop();
      throw new Error(`nats-server did not start: ${log.slice(-20).join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    natsUrl: `nats://127.0.0.1:${port}`,
    storeDir: store,
    perService: {
      messaging: (service) => ({ user: service, pass: passwords[service], inboxPrefix: `_INBOX.${service}` }),
      databaseUrl: (service) => roles.urlFor(schemaOf(service)),
    },
    violations: () => log.filter((line) => /Violation/.test(line)),
    stop: async () => {
      await stopServer(server, store);
      await roles.drop();
    },
  };
}

async function stopServer(server: ChildProcess, store: string): Promise<void> {
  if (server.exitCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
  rmSync(store, { recursive: true, force: true });
}

/** Roles `<prefix>gateway`, … made by init-roles.sql in the test's database; dropped afterwards. */
class ServiceRoles {
  private constructor(
    private readonly databaseUrl: URL,
    private readonly prefix: string,
    private readonly passwords: Record<string, string>,
  ) {}

  static async create(databaseUrl: string): Promise<ServiceRoles> {
    const prefix = `ca_shipped_${randomBytes(4).toString('hex')}_`;
    const schemas = SERVICES.map(schemaOf);
    const passwords = Object.fromEntries(schemas.map((s) => [s, randomBytes(18).toString('hex')]));
    const roles = new ServiceRoles(new URL(databaseUrl), prefix, passwords);
    try {
      await promisify(execFile)('psql', [
        databaseUrl,
        '-q',
        '-v',
        'ON_ERROR_STOP=1',
        '-v',
        `role_prefix=${prefix}`,
        ...schemas.flatMap((s) => ['-v', `${s}_password=${passwords[s]}`]),
        '-f',
        INIT_ROLES_SQL,
      ]);
    } catch (error) {
      await roles.drop();
      throw error;
    }
    return roles;
  }

  urlFor(schema: string): string {
    const url = new URL(this.databaseUrl);
    url.username = `${this.prefix}${schema}`;
    url.password = this.passwords[schema];
    return url.toString();
  }

  /** Drops the roles (the test database, which their objects live in, is dropped first or after). */
  async drop(): Promise<void> {
    const client = new Client({ connectionString: this.databaseUrl.toString() });
    await client.connect();
    try {
      for (const schema of Object.keys(this.passwords)) {
        const role = `${this.prefix}${schema}`;
        const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
        if (exists.rowCount === 0) continue;
        // Its objects live in this database only: hand them back, then the role can go.
        await client.query(`REASSIGN OWNED BY "${role}" TO CURRENT_USER`);
        await client.query(`DROP OWNED BY "${role}"`);
        await client.query(`DROP ROLE "${role}"`);
      }
    } finally {
      await client.end();
    }
  }
}

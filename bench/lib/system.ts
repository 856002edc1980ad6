/**
 * Starts the CA Manager for a benchmark, on free ports with a fresh DATA_DIR, and talks to its
 * administrative API.
 *
 * - `embedded`: exactly what `npm start` runs (`apps/embedded/src/main.ts`): PGlite and the
 *   in-process transport.
 * - `postgres`: the same on a throwaway database created on the server of DATABASE_URL (dropped
 *   afterwards), with NATS_URL's NATS when that is set (own stream names, see launch-system.ts).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort, httpCall, waitFor200 } from './http-load';
import { deleteBenchStreams } from './bench-streams';
import { mustRun, onCleanup, spawnGroup, stopGroup, tempDir } from './proc';
import { REPO_ROOT } from './report';

export type SystemMode = 'embedded' | 'postgres';

export interface SystemOptions {
  mode: SystemMode;
  /** More environment for the system (e.g. LOG_LEVEL). */
  env?: Record<string, string>;
  /** postgres mode: use NATS_URL's NATS when it is set (default), or the in-process transport. */
  nats?: boolean;
  readyTimeoutMs?: number;
  /** More options for the system's node process (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /**
   * Embedded mode: expose the embedded database's URL as `databaseUrl`, for reading table sizes
   * (the same system, started through bench/lib/launch-system.ts instead of apps/embedded's main).
   */
  exposeDatabase?: boolean;
  /**
   * A store kept between runs (bench/inventory.ts `--state`): this DATA_DIR (the embedded
   * database, the development token key) instead of a temporary one, and in postgres mode this
   * database and key-encryption key instead of a throwaway database; nothing is removed at stop.
   */
  keep?: { dataDir: string; databaseUrl?: string; caKek?: string };
  /**
   * Another checkout of the repository to run the system from (an exported earlier revision with
   * node_modules beside it), for a before/after pair in one run; default this one.
   */
  root?: string;
}

export interface RunningSystem {
  mode: SystemMode;
  /** "embedded (PGlite, in-process transport)", "Postgres 15.x + NATS", … */
  description: string;
  adminUrl: string;
  pkiUrl: string;
  pkiPort: number;
  dataDir: string;
  /** The throwaway database in postgres mode; the embedded one with `exposeDatabase`. */
  databaseUrl?: string;
  /** NATS_URL and the id of the system's own JetStream streams (bench-streams.ts), when on NATS. */
  nats?: { url: string; streamId: string };
  /** From spawning the process until both /health/ready answered 200. */
  readyMs: number;
  token(tenantId: string): Promise<string>;
  /** The last lines the system logged (for error messages). */
  logTail(): string;
  /** Whether the system's process is still running. */
  alive(): boolean;
  /** The system's Node process (its /proc entry gives the memory it holds). */
  pid: number;
  stop(): Promise<void>;
}

/** Settings every benchmark starts the system with: limits that would otherwise cut a load test short. */
export const BENCH_SYSTEM_ENV = {
  RATE_LIMIT_PER_MINUTE: '10000000',
  DEFAULT_CERTIFICATE_LIMIT: '100000000',
  // Every loader sends from one address: the per-client shares would cap the loader, not the system.
  HTTP_MAX_CONNECTIONS_PER_CLIENT: '1000000',
  HTTP_CLIENT_REQUESTS_PER_SECOND: '0',
  LOG_LEVEL: 'info',
};

const NODE_SWC = ['-r', '@swc-node/register'];

/** process.env without what would point the system elsewhere than the benchmark wants. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    'DATABASE_URL',
    'NATS_URL',
    'CA_KEK',
    'JWT_PUBLIC_KEY',
    'JWT_PUBLIC_KEY_FILE',
    'JWT_JWKS_URI',
    'JWT_ISSUER',
    'JWT_AUDIENCE',
    'KEY_CUSTODY',
    'DATA_DIR',
    'GATEWAY_PORT',
    'PKI_PORT',
    'PKI_PUBLIC_URL',
    'GATEWAY_PUBLIC_URL',
    'HOST',
    'OCSP_RESPONDER_WORKERS',
  ]) {
    delete env[name];
  }
  return env;
}

export async function startSystem(options: SystemOptions): Promise<RunningSystem> {
  const dataDir = options.keep?.dataDir ?? tempDir('data');
  const [gatewayPort, pkiPort] = [await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = {
    ...cleanEnv(),
    ...BENCH_SYSTEM_ENV,
    ...options.env,
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    GATEWAY_PORT: String(gatewayPort),
    PKI_PORT: String(pkiPort),
    PKI_PUBLIC_URL: `http://127.0.0.1:${pkiPort}`,
    GATEWAY_PUBLIC_URL: `http://127.0.0.1:${gatewayPort}`,
  };
  let description = 'embedded (PGlite, in-process transport)';
  let databaseUrl: string | undefined;
  let dropDatabase = async () => undefined as void;
  let entry = 'apps/embedded/src/main.ts';
  let nats: RunningSystem['nats'];
  const databaseUrlFile = join(dataDir, 'bench-database-url');
  if (options.mode === 'embedded' && options.exposeDatabase) {
    entry = 'bench/lib/launch-system.ts';
    env.BENCH_DATABASE_URL_FILE = databaseUrlFile;
  }
  if (options.mode === 'postgres') {
    const adminUrl = process.env.DATABASE_URL;
    if (!adminUrl) throw new Error('postgres mode needs DATABASE_URL');
    const kept = options.keep?.databaseUrl;
    const db = kept
      ? { url: kept, serverVersion: await serverVersion(kept), drop: async () => undefined }
      : await createThrowawayDatabase(adminUrl);
    databaseUrl = db.url;
    dropDatabase = db.drop;
    env.DATABASE_URL = db.url;
    // Given by a benchmark that runs a service of its own beside the system (the same KEK).
    env.CA_KEK = options.keep?.caKek ?? options.env?.CA_KEK ?? randomBytes(32).toString('base64');
    if (process.env.NATS_URL && options.nats !== false) {
      const natsUrl = process.env.NATS_URL;
      const streamId = randomBytes(5).toString('hex');
      env.NATS_URL = natsUrl;
      env.BENCH_STREAM_ID = streamId;
      nats = { url: natsUrl, streamId };
      const drop = dropDatabase;
      // The launcher deletes its streams when stopped; this covers a launcher that died.
      dropDatabase = async () => {
        await drop();
        await deleteBenchStreams(natsUrl, streamId).catch(() => undefined);
      };
    }
    entry = 'bench/lib/launch-system.ts';
    description = `Postgres ${db.serverVersion} (${kept ? 'kept' : 'throwaway'} database) + ${env.NATS_URL ? 'NATS (own JetStream stream)' : 'in-process transport'}`;
  }

  const logFile = join(dataDir, 'system.log');
  const log = openSync(logFile, 'a');
  const started = performance.now();
  const child = spawnGroup(process.execPath, [...(options.nodeArgs ?? []), ...NODE_SWC, entry], {
    cwd: options.root ?? REPO_ROOT,
    env,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await stopGroup(child, 20_000);
    await dropDatabase();
  };
  onCleanup(stop);

  const adminUrl = `http://127.0.0.1:${gatewayPort}`;
  const pkiUrl = `http://127.0.0.1:${pkiPort}`;
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) =>
      reject(new Error(`the system exited (${code}) before it was ready:\n${tail(logFile)}`)),
    ),
  );
  const timeout = options.readyTimeoutMs ?? 180_000;
  await Promise.race([
    Promise.all([
      waitFor200(`${adminUrl}/health/ready`, timeout),
      waitFor200(`${pkiUrl}/health/ready`, timeout),
    ]),
    exited,
  ]).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}\n--- system log ---\n${tail(logFile)}`);
  });
  exited.catch(() => undefined);
  const readyMs = performance.now() - started;
  if (options.mode === 'embedded' && options.exposeDatabase)
    databaseUrl = await readWhenWritten(databaseUrlFile);

  return {
    mode: options.mode,
    description,
    adminUrl,
    pkiUrl,
    pkiPort,
    dataDir,
    databaseUrl,
    nats,
    readyMs,
    token: (tenantId) => devToken(dataDir, tenantId),
    logTail: () => tail(logFile),
    alive: () => child.exitCode === null && child.signalCode === null,
    pid: child.pid!,
    stop,
  };
}

/** `npm run token` (tools/token.ts) against the development key in DATA_DIR. */
export async function devToken(dataDir: string, tenantId: string): Promise<string> {
  const result = await mustRun(
    process.execPath,
    [...NODE_SWC, 'tools/token.ts', '--tenant', tenantId, '--ttl', '21600', '--sub', 'bench'],
    { cwd: REPO_ROOT, env: { ...cleanEnv(), DATA_DIR: dataDir } },
  );
  return result.stdout.trim();
}

/** A JSON answer's top-level object (a problem document for errors). */
export type JsonObject = Record<string, unknown>;

export interface Api {
  call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: JsonObject; bytes: number }>;
}

/** The administrative API with one tenant's token. */
export function adminApi(system: RunningSystem, token: string): Api {
  return {
    async call(method, path, body) {
      const answer = await httpCall(`${system.adminUrl}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = answer.body.toString();
      let json: JsonObject;
      try {
        json = text ? (JSON.parse(text) as JsonObject) : {};
      } catch {
        json = { text };
      }
      return { status: answer.status, json, bytes: answer.body.length };
    },
  };
}

export const ISSUE_BODY = {
  clientId: 'bench-client',
  commonName: 'bench.example.com',
  organization: 'Bench',
  organizationalUnit: 'Performance',
  country: 'US',
  validityDays: 365,
};

/** Initializes the tenant's CA; resolves with its PEM once the distribution surface serves it. */
export async function initializeCa(system: RunningSystem, api: Api, tenantId: string): Promise<string> {
  const init = await api.call('POST', '/v1/ca/initialize', {
    commonName: 'Bench Root CA',
    organization: 'Bench',
    country: 'US',
    validityYears: 10,
  });
  if (init.status !== 200) throw new Error(`CA initialization: ${init.status} ${JSON.stringify(init.json)}`);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const pem = await httpCall(`${system.pkiUrl}/v1/tenants/${tenantId}/ca.pem`);
    if (pem.status === 200) return pem.body.toString();
    if (Date.now() > deadline) throw new Error(`ca.pem not served: ${pem.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface ThrowawayDatabase {
  url: string;
  serverVersion: string;
  drop(): Promise<void>;
}

async function serverVersion(url: string): Promise<string> {
  return withClient(url, async (c) => {
    const { rows } = await c.query<{ server_version: string }>('SHOW server_version');
    return rows[0].server_version.split(' ')[0];
  });
}

export async function createThrowawayDatabase(adminUrl: string): Promise<ThrowawayDatabase> {
  const name = `ca_bench_${randomBytes(6).toString('hex')}`;
  const serverVersion = await withClient(adminUrl, async (c) => {
    await c.query(`CREATE DATABASE ${name}`);
    const { rows } = await c.query<{ server_version: string }>('SHOW server_version');
    return rows[0].server_version.split(' ')[0];
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    serverVersion,
    drop: () =>
      withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}

export async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The launcher writes the file just after the system is ready (both surfaces may answer first). */
async function readWhenWritten(file: string): Promise<string> {
  for (let waited = 0; ; waited += 50) {
    try {
      const text = readFileSync(file, 'utf8').trim();
      if (text) return text;
    } catch {
      // not written yet
    }
    if (waited > 30_000) throw new Error(`${file} was not written`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-30).join('\n');
  } catch {
    return '(no log)';
  }
}

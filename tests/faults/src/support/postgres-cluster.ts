import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { waitFor } from './child-process';
import { freePorts } from '@ca/test-support';

/** The newest installed PostgreSQL's binaries (Debian layout), or PG_BIN_DIR. */
function postgresBinDir(): string {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const bin = join(root, version, 'bin');
    if (existsSync(join(bin, 'initdb'))) return bin;
  }
  throw new Error('no PostgreSQL server binaries found (set PG_BIN_DIR)');
}

export function postgresServerInstalled(): boolean {
  try {
    postgresBinDir();
    return true;
  } catch {
    return false;
  }
}

/**
 * A throwaway PostgreSQL cluster of the suite's own (initdb, trust auth, a free port, fsync off),
 * so that a test can crash and restart it without touching the machine's shared server. initdb
 * refuses to run as root, so as root it runs as the `postgres` user on a directory it owns.
 */
export class OwnPostgresCluster {
  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly bin: string,
    private readonly runAs: string[],
  ) {}

  static async start(): Promise<OwnPostgresCluster> {
    const bin = postgresBinDir();
    const [port] = await freePorts(1);
    const dir = mkdtempSync(join(tmpdir(), 'ca-faults-pg-'));
    const asRoot = userInfo().uid === 0;
    if (asRoot) {
      const uid = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
      const gid = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
      chownSync(dir, Number(uid), Number(gid));
    }
    chmodSync(dir, 0o700);
    const cluster = new OwnPostgresCluster(port, dir, bin, asRoot ? ['runuser', '-u', 'postgres', '--'] : []);
    // pg_ctl leaves the server running on its own: stop it if the test process exits first.
    const stopOnExit = () => cluster.stopNow();
    process.once('exit', stopOnExit);
    cluster.forgetExitHook = () => process.off('exit', stopOnExit);
    await cluster.run('initdb', ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync']);
    await cluster.up();
    return cluster;
  }

  /** URL of a database on this cluster. */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async createDatabase(name: string): Promise<string> {
    const client = new Client({ connectionString: this.url() });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${name}`);
    } finally {
      await client.end();
    }
    return this.url(name);
  }

  async up(): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    await this.run('pg_ctl', [
      '-D',
      join(this.dir, 'data'),
      '-o',
      options,
      '-l',
      join(this.dir, 'postgres.log'),
      '-w',
      'start',
    ]);
    await waitFor(() => this.answers(), 10_000, 'postgres answering');
  }

  /** A crash: `pg_ctl stop -m immediate` (every backend killed, recovery at the next start). */
  async crash(): Promise<void> {
    await this.run('pg_ctl', ['-D', join(this.dir, 'data'), '-m', 'immediate', '-w', 'stop']);
  }

  private forgetExitHook = () => undefined as void;

  /** Synchronous immediate stop, for an exiting process; removes the files. */
  private stopNow(): void {
    try {
      const [command, ...rest] = [
        ...this.runAs,
        join(this.bin, 'pg_ctl'),
        '-D',
        join(this.dir, 'data'),
        '-m',
        'immediate',
        'stop',
      ];
      execFileSync(command, rest, { stdio: 'ignore', cwd: this.dir });
    } catch {
      // not running
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  async remove(): Promise<void> {
    this.forgetExitHook();
    try {
      await this.run('pg_ctl', ['-D', join(this.dir, 'data'), '-m', 'immediate', '-w', 'stop']);
    } catch {
      // already stopped
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async answers(): Promise<boolean> {
    const client = new Client({ connectionString: this.url(), connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private async run(program: string, args: string[]): Promise<void> {
    const [command, ...rest] = [...this.runAs, join(this.bin, program), ...args];
    await promisify(execFile)(command, rest, { cwd: this.dir });
  }
}

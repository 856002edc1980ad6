import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { TestDatabase, createTestDatabase } from '@ca/persistence/testing';
import { freePorts } from '@ca/test-support';

const ROOT = join(__dirname, '../../..');

interface Served {
  code: number | null;
  output: string;
}

/**
 * The `serve` target's command of `app` (revocation unless named) as an operator or a process
 * supervisor runs it: the command from apps/<app>/project.json, from the workspace root, with
 * node_modules/.bin on PATH as Nx's run-commands puts it. Not `npx nx serve <app>`: each `serve`
 * target is `continuous`, and Nx 23 reports a continuous task that ends, whatever its exit code, as
 * stopped (success), so `nx serve` exits 0 (see docs/operations.md). `onOutput` sees the output as
 * it comes and may act on the process tree (kill the service).
 */
function serve(
  env: NodeJS.ProcessEnv,
  onOutput?: (text: string, rootPid: number) => void,
  app = 'revocation',
): Promise<Served> {
  const project = JSON.parse(readFileSync(join(ROOT, 'apps', app, 'project.json'), 'utf8')) as {
    targets: { serve: { options: { command: string } } };
  };
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', project.targets.serve.options.command], {
      cwd: ROOT,
      env: {
        ...process.env,
        PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH ?? ''}`,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      onOutput?.(output, child.pid!);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

/** The service started as `rootPid`: that process or its descendant running the revocation entry point. */
function servicePids(rootPid: number): number[] {
  const parents = new Map<number, number>();
  const commands = new Map<number, string[]>();
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      // The parent pid is the 4th field of /proc/<pid>/stat, after the command in parentheses.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      commands.set(Number(entry), readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0'));
    } catch {
      // gone meanwhile
    }
  }
  const under = (pid: number): boolean => {
    if (pid === rootPid) return true;
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p))
      if (p === rootPid) return true;
    return false;
  };
  return [...commands]
    .filter(([pid, args]) => args.includes('apps/revocation/src/main.ts') && under(pid))
    .map(([pid]) => pid);
}

async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port;
}

describe('serve exit status', () => {
  it('is non-zero when the service stops on a configuration error', async () => {
    const served = await serve({
      HEALTH_PORT: 'not-a-port',
      DATABASE_URL: 'postgres://x@127.0.0.1:1/x',
      NATS_URL: 'nats://127.0.0.1:1',
    });
    expect(served.output).toContain('Configuration error: HEALTH_PORT');
    expect(served.code).not.toBe(0);
  }, 120_000);

  const withServices = process.env.DATABASE_URL && process.env.NATS_URL ? describe : describe.skip;
  if (!process.env.DATABASE_URL || !process.env.NATS_URL) {
    process.stderr.write(
      'serve exit status: DATABASE_URL/NATS_URL not set, the running-service cases skipped\n',
    );
  }

  withServices('of a running service', () => {
    let database: TestDatabase;
    beforeAll(async () => (database = await createTestDatabase('postgres')), 60_000);
    afterAll(() => database?.drop(), 60_000);

    it('is non-zero when the service is killed', async () => {
      let killed = false;
      const healthPort = String(await freePort());
      const served = await serve(
        { DATABASE_URL: database.url, HEALTH_PORT: healthPort },
        (output, rootPid) => {
          if (killed || !output.includes('revocation started')) return;
          const pids = servicePids(rootPid);
          killed = pids.length > 0;
          for (const pid of pids) process.kill(pid, 'SIGKILL');
        },
      );
      expect(killed).toBe(true);
      expect(served.code).not.toBe(0);
    }, 120_000);

    it('names HEALTH_PORT in one line when that port is taken', async () => {
      const blocker = createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      const { port } = blocker.address() as { port: number };
      try {
        const served = await serve({ DATABASE_URL: database.url, HEALTH_PORT: String(port) });
        expect(served.output).toContain(
          `Configuration error: HEALTH_PORT: port ${port} on 127.0.0.1 is already in use; set HEALTH_PORT to a free port`,
        );
        expect(served.code).not.toBe(0);
      } finally {
        blocker.close();
      }
    }, 120_000);

    it('is non-zero when every worker of the responder fails at start (OCSP_RESPONDER_WORKERS=2)', async () => {
      const blocker = createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      const { port } = blocker.address() as { port: number };
      const dataDir = mkdtempSync(join(tmpdir(), 'serve-exit-'));
      try {
        const served = await serve(
          {
            DATABASE_URL: database.url,
            CA_KEK: randomBytes(32).toString('base64'),
            DATA_DIR: dataDir,
            PKI_PORT: String(port),
            OCSP_RESPONDER_WORKERS: '2',
          },
          undefined,
          'ocsp-responder',
        );
        expect(served.output).toContain('Start-up failed: ocsp-responder: every worker failed to start');
        expect(served.code).not.toBe(0);
      } finally {
        blocker.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }, 120_000);
  });
});

import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Where `program` is: on the PATH, or in /usr/sbin (nginx lives there, outside a non-root PATH).
 * Undefined when it is not installed. Asked once per program.
 */
const found = new Map<string, string | undefined>();
export function programPath(program: string): string | undefined {
  if (!found.has(program)) {
    const which = spawnSync('sh', ['-c', `command -v ${program} || command -v /usr/sbin/${program}`], {
      encoding: 'utf8',
    });
    found.set(program, which.status === 0 ? which.stdout.trim().split('\n')[0] : undefined);
  }
  return found.get(program);
}

export const hasProgram = (program: string): boolean => programPath(program) !== undefined;

/** `describe`, or `describe.skip` with a warning naming the missing programs (a visible skip). */
export function describeIfPrograms(programs: string[], name: string, body: () => void): void {
  const missing = programs.filter((p) => !hasProgram(p));
  if (missing.length === 0) return describe(name, body);
  // stderr directly: Jest drops the console output of a file whose tests are all skipped.
  process.stderr.write(`${name}: skipped, ${missing.join(' and ')} not installed\n`);
  describe.skip(name, body);
}

export interface ProgramResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a program without blocking the event loop: the programs here talk to the system under test,
 * which serves from this very process (spawnSync would deadlock). Killed after `timeoutMs`.
 */
export function runProgram(
  program: string,
  args: readonly string[],
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<ProgramResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: options.env,
      cwd: options.cwd,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** What `npm run ops` answered: its exit code and output. */
export interface OpsResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `npm run -s ops -- <args>` as an operator runs it (docs/operations.md): another process, from the
 * repository root, with `env` as its whole environment (which decides embedded or Postgres).
 */
export async function runOps(args: readonly string[], env: NodeJS.ProcessEnv): Promise<OpsResult> {
  const root = join(__dirname, '..', '..', '..', '..');
  const { status, stdout, stderr } = await runProgram('npm', ['run', '-s', 'ops', '--', ...args], {
    env,
    cwd: root,
    timeoutMs: 120_000,
  });
  return { code: status, stdout, stderr };
}

/** Stops a long-running child and waits for it to be gone. */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

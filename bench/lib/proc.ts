/**
 * Child processes and temporary directories of one benchmark run, and their clean-up.
 *
 * Every long-lived child is spawned `detached`, i.e. as the leader of its own process group, so
 * that stopping it also stops what it started (npm -> node, sh -> openssl). Whatever is still
 * running when the benchmark ends (normally, by an error, or by Ctrl-C) is stopped, and every
 * temporary directory is removed.
 */
import { ChildProcess, spawn, SpawnOptions } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const groups = new Set<ChildProcess>();
const tempDirs = new Set<string>();
const cleanups: Array<() => Promise<void> | void> = [];
let handlersInstalled = false;

/** A new empty directory under the system's temporary directory, removed at exit. */
export function tempDir(prefix: string): string {
  installExitHandlers();
  const dir = mkdtempSync(join(tmpdir(), `ca-bench-${prefix}-`));
  tempDirs.add(dir);
  return dir;
}

/** Runs `fn` (in reverse order of registration) before the process ends, also on Ctrl-C. */
export function onCleanup(fn: () => Promise<void> | void): void {
  installExitHandlers();
  cleanups.push(fn);
}

/**
 * Spawns a process as the leader of a new process group; `stopGroup` ends the whole group.
 * `makesOwnGroup`: the program calls setpgid(0, 0) itself (e.g. `openssl ocsp -multi`), which a
 * session leader may not do, so it is not detached here.
 */
export function spawnGroup(
  command: string,
  args: string[],
  options: SpawnOptions = {},
  makesOwnGroup = false,
): ChildProcess {
  installExitHandlers();
  const child = spawn(command, args, { stdio: 'ignore', ...options, detached: !makesOwnGroup });
  groups.add(child);
  child.once('exit', () => groups.delete(child));
  return child;
}

/** SIGTERM to the child's process group, SIGKILL after `graceMs`; resolves once the leader exited. */
export async function stopGroup(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.pid === undefined) return;
  const exited = child.exitCode !== null || child.signalCode !== null;
  if (!exited) {
    const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    signalGroup(child, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
    await done;
    clearTimeout(timer);
  }
  // Anything the leader left behind in its group.
  signalGroup(child, 'SIGKILL');
  groups.delete(child);
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // No such group (gone already, or not made yet by a child that makes its own): the process alone.
    try {
      process.kill(child.pid!, signal);
    } catch {
      // Gone already.
    }
  }
}

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a short command to completion (in its own process group) and collects its output. */
export function runCommand(
  command: string,
  args: string[],
  options: SpawnOptions & { input?: string | Buffer } = {},
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawnGroup(command, args, { ...options, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (code) =>
      resolve({
        code,
        stdout: Buffer.concat(out).toString(),
        stderr: Buffer.concat(err).toString(),
        ms: performance.now() - started,
      }),
    );
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(options.input ?? '');
  });
}

/** Like `runCommand`, but throws with the command's output when it does not exit with 0. */
export async function mustRun(
  command: string,
  args: string[],
  options: SpawnOptions & { input?: string | Buffer } = {},
): Promise<CommandResult> {
  const result = await runCommand(command, args, options);
  if (result.code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited with ${result.code}:\n${result.stderr}${result.stdout}`,
    );
  }
  return result;
}

/** Whether a program is on PATH. */
export async function onPath(program: string): Promise<boolean> {
  const result = await runCommand('sh', ['-c', `command -v ${program}`]).catch(() => undefined);
  return result?.code === 0;
}

/** Runs the registered clean-ups, stops every process group left, removes the temporary directories. */
export async function cleanupAll(): Promise<void> {
  while (cleanups.length > 0) {
    const fn = cleanups.pop()!;
    try {
      await fn();
    } catch (error) {
      process.stderr.write(`clean-up step failed: ${(error as Error).message}\n`);
    }
  }
  await Promise.all([...groups].map((child) => stopGroup(child, 5_000)));
  removeTempDirs();
}

function removeTempDirs(): void {
  for (const dir of tempDirs) {
    rmSync(dir, { recursive: true, force: true });
    tempDirs.delete(dir);
  }
}

function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: stopping the benchmark's processes…\n`);
      void cleanupAll().finally(() => process.exit(130));
    });
  }
  // Last resort (process.exit, an uncaught error): no time for graceful stops.
  process.once('exit', () => {
    for (const child of groups) signalGroup(child, 'SIGKILL');
    removeTempDirs();
  });
}

/** Runs a benchmark's main function, then always cleans up; exits non-zero on failure. */
export function runMain(main: () => Promise<void>): void {
  installExitHandlers();
  main()
    .then(
      () => cleanupAll(),
      async (error: unknown) => {
        process.stderr.write(`\nbenchmark failed: ${(error as Error)?.stack ?? String(error)}\n`);
        await cleanupAll();
        process.exitCode = 1;
      },
    )
    .finally(() => process.exit());
}

/**
 * Makes `program` available from the Debian package `pkg` when it is missing (the benchmark
 * peers: `golang-cfssl` for cfssl). Uses apt-get as root, or through `sudo -n`; returns whether
 * the program is on PATH afterwards. Never run by CI: only the benchmarks call it.
 */
export async function ensureDebianPackage(program: string, pkg: string): Promise<boolean> {
  if (await onPath(program)) return true;
  if (!(await onPath('apt-get'))) return false;
  const asRoot = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const aptGet = async (...args: string[]) => {
    const [command, ...rest] = [...asRoot, 'apt-get', ...args];
    return runCommand(command, rest, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  };
  process.stdout.write(`${program} not found: installing the Debian package ${pkg}… `);
  let result = await aptGet('install', '-y', '--no-install-recommends', pkg);
  if (result.code !== 0) {
    // A fresh machine may not have the package lists yet.
    await aptGet('update');
    result = await aptGet('install', '-y', '--no-install-recommends', pkg);
  }
  const ok = result.code === 0 && (await onPath(program));
  process.stdout.write(ok ? 'done\n' : `failed (${result.stderr.trim().split('\n').pop() ?? result.code})\n`);
  return ok;
}

import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, readdirSync } from 'node:fs';

/** Every child still running; SIGKILLed if the test process exits first (a crash, Ctrl-C). */
const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function killOnExit(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const c of live) c.kill('SIGKILL');
  });
}

/** How a program's process ended. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * A program of the fault and security suites (a service, nats-server, postgres) run as a child process with
 * its output in a log file, so a failing run can be diagnosed and the test output stays quiet.
 */
export class ChildProgram {
  private child?: ChildProcess;
  private exited?: Promise<ExitStatus>;

  constructor(
    readonly name: string,
    private readonly command: string,
    private readonly args: readonly string[],
    private readonly options: { cwd?: string; env?: NodeJS.ProcessEnv; logFile: string },
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  start(): void {
    if (this.child) throw new Error(`${this.name} is already running`);
    const log = openSync(this.options.logFile, 'a');
    const child = spawn(this.command, this.args, {
      cwd: this.options.cwd,
      env: this.options.env,
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    killOnExit(child);
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    void this.exited.then(() => {
      if (this.child === child) this.child = undefined;
    });
  }

  /**
   * SIGKILL (a crash) or SIGTERM (an orderly stop); resolves once the process has exited, with how
   * it ended (undefined when it was not running).
   */
  async stop(signal: 'SIGKILL' | 'SIGTERM' = 'SIGTERM', timeoutMs = 20_000): Promise<ExitStatus | undefined> {
    const child = this.child;
    if (!child) return undefined;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const status = await this.exited;
    clearTimeout(timer);
    return status;
  }
}

/** The pids whose parent is `pid` (from /proc: Linux only, as the suites are). */
export function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      // The parent pid is the 4th field of /proc/<pid>/stat, after the command in parentheses.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** Whether a process with this pid exists (a zombie counts as gone). */
export function processExists(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Polls `probe` every 100 ms until it returns true; throws after `timeoutMs`. */
export async function waitFor(probe: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await sleep(100);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

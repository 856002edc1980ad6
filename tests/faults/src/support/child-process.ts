import { ChildProcess, spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';

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

/**
 * A program of the fault and security suites (a service, nats-server, postgres) run as a child process with
 * its output in a log file, so a failing run can be diagnosed and the test output stays quiet.
 */
export class ChildProgram {
  private child?: ChildProcess;
  private exited?: Promise<void>;

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
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    void this.exited.then(() => {
      if (this.child === child) this.child = undefined;
    });
  }

  /** SIGKILL (a crash) or SIGTERM (an orderly stop); resolves once the process has exited. */
  async stop(signal: 'SIGKILL' | 'SIGTERM' = 'SIGTERM', timeoutMs = 20_000): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    await this.exited;
    clearTimeout(timer);
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

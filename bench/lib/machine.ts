import { execFileSync } from 'node:child_process';
import { arch, cpus, loadavg, totalmem, type as osType } from 'node:os';

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  node: string;
  openssl: string;
  os: string;
  memoryGiB: number;
  /** 1-minute load average when the benchmark started: other work on the machine skews results. */
  loadAverage: number;
  commit: string;
}

/** What the numbers of a run depend on, for the entry in bench/history. */
export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpuModel: (list[0]?.model ?? 'unknown').replace(/\s+/g, ' ').trim(),
    cores: list.length,
    node: process.version,
    openssl: tryRun('openssl', ['version']) ?? 'not installed',
    os: `${osType()} ${arch()}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    loadAverage: loadavg()[0],
    commit: commitDescription(),
  };
}

export function describeMachine(m: MachineInfo): string {
  return (
    `${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}; Node.js ${m.node}; ${m.openssl}; ` +
    `load average ${m.loadAverage.toFixed(2)} at start`
  );
}

function commitDescription(): string {
  if (process.env.BENCH_COMMIT) return process.env.BENCH_COMMIT;
  const head = tryRun('git', ['rev-parse', '--short', 'HEAD']);
  if (!head) return 'unknown';
  const dirty = tryRun('git', ['status', '--porcelain', '--untracked-files=no', '--', 'apps', 'libs']);
  return dirty ? `${head} with uncommitted changes in apps/ or libs/` : head;
}

function tryRun(command: string, args: string[]): string | undefined {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

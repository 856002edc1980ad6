import { readFileSync, readdirSync } from 'node:fs';

/** Linux's USER_HZ: /proc reports CPU times in these ticks. */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) a process has used so far, in ms; undefined where /proc is missing. */
export function processCpuMs(pid: number): number | undefined {
  return cpuMsOf(`/proc/${pid}/stat`);
}

/**
 * CPU time of a process's main thread (its JavaScript, the one thread a `.cpuprofile` samples),
 * in ms: the rest of the process's time is libuv's pool, V8's helpers and the profiler's sampler.
 */
export function mainThreadCpuMs(pid: number): number | undefined {
  return cpuMsOf(`/proc/${pid}/task/${pid}/stat`);
}

function cpuMsOf(statFile: string): number | undefined {
  try {
    const stat = readFileSync(statFile, 'utf8');
    // Fields after the command name (which may hold spaces) in parentheses; utime and stime are the 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** The process's CPU per second of wall time while nothing is asked of it (its pollers, timers). */
export async function idleCpuMsPerSecond(pid: number, overMs = 2_000): Promise<number | undefined> {
  const before = processCpuMs(pid);
  await new Promise((resolve) => setTimeout(resolve, overMs));
  const after = processCpuMs(pid);
  return before === undefined || after === undefined ? undefined : ((after - before) * 1000) / overMs;
}

/**
 * The process's CPU time once it has gone quiet (under 5% of a core, or `idleMsPerSecond` plus 2%,
 * over half a second, or after `maxWaitMs`): the work a load set off and left behind (events still
 * being consumed) included.
 */
export async function cpuMsWhenQuiet(
  pid: number,
  maxWaitMs = 60_000,
  idleMsPerSecond = 0,
): Promise<number | undefined> {
  const quietBelow = Math.max(25, (idleMsPerSecond + 20) / 2);
  const until = Date.now() + maxWaitMs;
  let last = processCpuMs(pid);
  while (last !== undefined && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = processCpuMs(pid);
    if (now === undefined) return undefined;
    const busy = now - last;
    last = now;
    if (busy < quietBelow) break;
  }
  return last;
}

/** CPU time (ms) used so far by every process whose command name is one of `names`, per name. */
export function cpuMsByCommand(names: readonly string[]): Record<string, number> {
  const totals: Record<string, number> = Object.fromEntries(names.map((name) => [name, 0]));
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended while we looked
    }
    const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    if (command in totals) totals[command] += cpuMsOf(`/proc/${entry}/stat`) ?? 0;
  }
  return totals;
}

/** CPU time (ms) the whole machine has spent busy (not idle nor waiting on I/O) so far, all cores. */
export function machineBusyCpuMs(): number | undefined {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = ticks;
    return ((user + nice + system + irq + softirq + steal) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** CPU time of a process and its children (a node:cluster primary and its workers), in ms. */
export function processTreeCpuMs(pid: number): number | undefined {
  const own = processCpuMs(pid);
  if (own === undefined) return undefined;
  return childPids(pid).reduce((total, child) => total + (processCpuMs(child) ?? 0), own);
}

/** The pids whose parent is `pid`. */
function childPids(pid: number): number[] {
  try {
    // Every thread's children: a process forks from its main thread, so this is the list.
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

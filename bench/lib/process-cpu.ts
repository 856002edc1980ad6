import { readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc reports CPU times in these ticks. */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) a process has used so far, in ms; undefined where /proc is missing. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) in parentheses; utime and stime are the 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * The process's CPU time once it has gone quiet (under 5% of a core over half a second, or after
 * `maxWaitMs`): the work a load set off and left behind (events still being consumed) included.
 */
export async function cpuMsWhenQuiet(pid: number, maxWaitMs = 60_000): Promise<number | undefined> {
  const until = Date.now() + maxWaitMs;
  let last = processCpuMs(pid);
  while (last !== undefined && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = processCpuMs(pid);
    if (now === undefined) return undefined;
    const busy = now - last;
    last = now;
    if (busy < 25) break;
  }
  return last;
}

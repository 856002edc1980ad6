import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Resident memory of this process, sampled while a flood runs: the system under test runs in it. */
export class RssSampler {
  private readonly timer: NodeJS.Timeout;
  private peakBytes = process.memoryUsage.rss();

  constructor(everyMs = 50) {
    this.timer = setInterval(() => {
      this.peakBytes = Math.max(this.peakBytes, process.memoryUsage.rss());
    }, everyMs);
  }

  /** The highest resident set size seen since it started. */
  stop(): number {
    clearInterval(this.timer);
    return Math.max(this.peakBytes, process.memoryUsage.rss());
  }
}

export const MIB = 1024 * 1024;

/** Runs `work(i)` for i in [0, count) with `concurrency` workers. */
export async function flood(
  count: number,
  concurrency: number,
  work: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

/** Calls `probe` every `everyMs` until stopped; returns how many calls succeeded and failed. */
export function steadyClient(probe: () => Promise<boolean>, everyMs = 100) {
  let ok = 0;
  let failed = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      if (await probe().catch(() => false)) ok++;
      else failed++;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, everyMs - (Date.now() - started))));
    }
  })();
  return {
    async stop(): Promise<{ ok: number; failed: number }> {
      running = false;
      await loop;
      return { ok, failed };
    },
  };
}

/**
 * The JavaScript heap still in use after a full collection: what the process keeps, without the
 * garbage V8 has not collected yet (which resident memory includes). `gc` is exposed for the call.
 */
export function liveHeapAfterGc(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return getHeapStatistics().used_heap_size;
}

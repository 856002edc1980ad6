/**
 * The system process's memory, sampled every 100 ms into a file (one JSON line each) when the
 * benchmark sets BENCH_MEMORY_FILE: resident set, V8 heap (committed and used), the heap's
 * new-space and large-object spaces, and memory outside the heap (Buffers, ArrayBuffers), so that a
 * benchmark can tell which of them grows while it streams (bench/inventory.ts).
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

export interface MemorySample {
  t: number;
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  /** Committed bytes of V8's young generation (the two semi-spaces) and of its large-object spaces. */
  newSpace: number;
  largeObjects: number;
}

/** In the system process: starts sampling if BENCH_MEMORY_FILE is set. */
export function sampleMemoryToFile(file = process.env.BENCH_MEMORY_FILE): void {
  if (!file) return;
  const timer = setInterval(() => {
    const usage = process.memoryUsage();
    let newSpace = 0;
    let largeObjects = 0;
    for (const space of getHeapSpaceStatistics()) {
      if (space.space_name === 'new_space') newSpace += space.space_size;
      if (space.space_name.endsWith('large_object_space')) largeObjects += space.space_size;
    }
    const sample: MemorySample = {
      t: Date.now(),
      rss: usage.rss,
      heapTotal: usage.heapTotal,
      heapUsed: usage.heapUsed,
      external: usage.external,
      arrayBuffers: usage.arrayBuffers,
      newSpace,
      largeObjects,
    };
    appendFileSync(file, `${JSON.stringify(sample)}\n`);
  }, 100);
  timer.unref();
}

/** In the benchmark: the samples taken between `from` and `to` (Date.now() values). */
export function memorySamples(file: string, from: number, to: number): MemorySample[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as MemorySample)
    .filter((s) => s.t >= from && s.t <= to);
}

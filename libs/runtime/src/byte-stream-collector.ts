import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Bytes handed on between two collections a byte stream asks for. A chunk of the inventory export
 * is copied about seven times outside V8's heap on its way (socket reads, the driver, the reply,
 * NATS both ways), so this keeps the garbage of some forty chunks, not of a hundred and more.
 * Measured (docs/benchmarks.md): 8 MiB cost 30% of the export's rate, 24 MiB 15 to 20%.
 */
export const COLLECT_AFTER_BYTES = 24 * 1024 * 1024;

type Collect = (options: { type: 'major'; execution: 'async' }) => void;

/**
 * V8's collector on demand, without `gc` on this process's global object: the flag only exposes it
 * in contexts made after it is set, and this one context is made for nothing else.
 */
function collector(): Collect | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as unknown;
    return typeof collect === 'function' ? (collect as Collect) : undefined;
  } catch {
    return undefined;
  }
}

let collect: Collect | null | undefined;
let sinceCollection = 0;

/**
 * Counts bytes a stream has handed on (written to a socket, sent on the bus) and, every
 * COLLECT_AFTER_BYTES of them, starts a full collection that V8 runs incrementally beside the
 * stream. Why (docs/architecture.md, "Export"): the export's buffers are garbage outside the heap
 * while it allocates little on the heap, so V8 collects them only when external memory has grown by
 * its fixed 64 MiB, and the process's resident memory rose by that much at its first export.
 * Young-generation collections do not help: a chunk's buffers live across the two chunks in flight,
 * so a scavenge promotes them instead of freeing them. One count per process, whichever stream adds.
 */
export function handedOn(bytes: number): void {
  sinceCollection += bytes;
  if (sinceCollection < COLLECT_AFTER_BYTES) return;
  sinceCollection = 0;
  if (collect === undefined) collect = collector() ?? null;
  collect?.({ type: 'major', execution: 'async' });
}

import pino from 'pino';

/** Where the batch goes: written synchronously (SonicBoom with `sync: true`, a test's sink). */
export interface SyncLineSink {
  write(text: string): unknown;
}

/**
 * Log lines collected during one turn of the event loop and written together at the next
 * (`setImmediate`): one write for all the lines a burst of requests logs, instead of one
 * synchronous write per line, without a write ever in flight on libuv's thread pool, so that
 * `flushSync` (on exit, on a fatal error) writes every line, in order, before the process ends.
 */
export class BatchedLogDestination implements pino.DestinationStream {
  private pending: string[] = [];
  private scheduled = false;

  constructor(private readonly sink: SyncLineSink) {}

  write(line: string): void {
    this.pending.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushSync);
    }
  }

  /** Writes what is pending now (called by pino's `logger.flush()` too). */
  flush(callback?: (error?: Error) => void): void {
    this.flushSync();
    callback?.();
  }

  readonly flushSync = (): void => {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const text = this.pending.length === 1 ? this.pending[0] : this.pending.join('');
    this.pending = [];
    this.sink.write(text);
  };
}

let standardOutput: BatchedLogDestination | undefined;

/** The process's one destination on standard output, shared by its loggers; flushed at exit. */
export function standardOutputDestination(): BatchedLogDestination {
  if (!standardOutput) {
    const destination = new BatchedLogDestination(pino.destination({ dest: 1, sync: true }));
    // 'exit' runs on process.exit() and after an uncaught exception: nothing logged before is lost.
    process.once('exit', destination.flushSync);
    standardOutput = destination;
  }
  return standardOutput;
}

/** Writes the lines still pending on standard output (before `process.exit`). */
export function flushLogs(): void {
  standardOutput?.flushSync();
}

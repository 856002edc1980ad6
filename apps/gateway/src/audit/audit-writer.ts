import { isDatabaseUnavailable } from '@ca/persistence';
import { AuditEntryInput } from './audit-chain';
import { AuditStore } from './audit.store';

export interface AuditWriterOptions {
  /** Entries written per transaction at most. */
  batchSize?: number;
  /** Entries held while the database does not answer; beyond it the oldest are dropped (and logged). */
  maxQueued?: number;
  retryDelayMs?: number;
}

interface WarnLogger {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/**
 * Writes audit entries after the response has gone out, off the request path: one queue per
 * process, drained by one writer at a time in batches, each batch one transaction under the
 * chain's head lock (AuditStore.append). A write that fails because the database is away is
 * retried; nothing is lost while it is briefly away. A write the database refuses for what it
 * holds is retried entry by entry, and an entry refused on its own is set aside in the dead-letter
 * table with the reason (AuditStore.deadLetter): one poison entry never blocks the entries
 * of every tenant after it.
 */
export class AuditWriter {
  private readonly queue: AuditEntryInput[] = [];
  private running?: Promise<void>;
  private closed = false;
  private readonly batchSize: number;
  private readonly maxQueued: number;
  private readonly retryDelayMs: number;

  constructor(
    private readonly store: AuditStore,
    private readonly logger: WarnLogger,
    options: AuditWriterOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 100;
    this.maxQueued = options.maxQueued ?? 50_000;
    this.retryDelayMs = options.retryDelayMs ?? 500;
  }

  record(entry: AuditEntryInput): void {
    if (this.queue.length >= this.maxQueued) {
      const [dropped] = this.queue.splice(0, 1);
      this.logger.error(
        { requestId: dropped.requestId, action: dropped.action },
        'audit queue full: an audit entry was dropped',
      );
    }
    this.queue.push(entry);
    this.kick();
  }

  /** Resolves once everything recorded so far is written (or the writer was closed). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Writes what is queued, trying for at most `timeoutMs`, then stops retrying. */
  async close(timeoutMs = 5_000): Promise<void> {
    const timer = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
    await Promise.race([this.flush(), timer]);
    this.closed = true;
    if (this.queue.length > 0)
      this.logger.error({ entries: this.queue.length }, 'audit entries not written at shutdown');
  }

  private kick(): void {
    if (this.running || this.closed) return;
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.queue.length > 0 && !this.closed) this.kick();
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0 && !this.closed) {
      const batch = this.queue.slice(0, this.batchSize);
      try {
        await this.store.append(batch);
      } catch (err) {
        if (isDatabaseUnavailable(err)) {
          this.logger.warn({ err, entries: batch.length }, 'writing audit entries failed; retrying');
          await new Promise((resolve) => setTimeout(resolve, this.retryDelayMs));
          continue;
        }
        if (!(await this.writeOneByOne(batch))) continue;
      }
      // The batch is still at the front: record() only appends, and drops only when full.
      this.queue.splice(0, Math.min(batch.length, this.queue.length));
    }
  }

  /** False when the database went away meanwhile (the batch is then retried as a whole). */
  private async writeOneByOne(batch: AuditEntryInput[]): Promise<boolean> {
    for (let i = 0; i < batch.length; i++) {
      try {
        await this.store.append([batch[i]]);
      } catch (err) {
        if (isDatabaseUnavailable(err)) {
          // The ones before it are written: leave only the rest queued.
          this.queue.splice(0, Math.min(i, this.queue.length));
          await new Promise((resolve) => setTimeout(resolve, this.retryDelayMs));
          return false;
        }
        await this.setAside(batch[i], err);
      }
    }
    return true;
  }

  private async setAside(entry: AuditEntryInput, err: unknown): Promise<void> {
    const reason = err instanceof Error ? err.message : String(err);
    this.logger.error({ err, requestId: entry.requestId }, 'audit entry refused by the database; set aside');
    try {
      await this.store.deadLetter(entry, reason);
    } catch (deadLetterError) {
      this.logger.error(
        { err: deadLetterError, requestId: entry.requestId, action: entry.action },
        'audit entry could not be set aside either: dropped',
      );
    }
  }
}

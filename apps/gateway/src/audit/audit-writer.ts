import { AuditEntryInput } from './audit-chain';
import { AuditRepository } from './audit.repository';

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
 * chain's head lock (AuditRepository.append). A failed write is retried; nothing is lost while
 * the database is briefly away.
 */
export class AuditWriter {
  private readonly queue: AuditEntryInput[] = [];
  private running?: Promise<void>;
  private closed = false;
  private readonly batchSize: number;
  private readonly maxQueued: number;
  private readonly retryDelayMs: number;

  constructor(
    private readonly repository: AuditRepository,
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
        await this.repository.append(batch);
        // The batch is still at the front: record() only appends, and drops only when full.
        this.queue.splice(0, Math.min(batch.length, this.queue.length));
      } catch (err) {
        this.logger.warn({ err, entries: batch.length }, 'writing audit entries failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, this.retryDelayMs));
      }
    }
  }
}

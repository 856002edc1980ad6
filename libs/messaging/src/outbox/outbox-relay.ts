import { Logger } from '@nestjs/common';
import { EventEnvelope } from '@ca/contracts';
import { DataSource } from 'typeorm';
import { EventBus } from '../events/event-bus';

interface OutboxRow {
  seq: string;
  id: string;
  type: string;
  tenant_id: string;
  payload: unknown;
  occurred_at: Date;
  trace_context: Record<string, string> | null;
}

/**
 * Publishes a schema's outbox to the EventBus in order, a batch at a time, then marks the batch's rows published.
 * Publishing happens outside any transaction (embedded Postgres serialises transactions, and a
 * publish may write to the same database); a crash between publish and mark only republishes,
 * which the stream's de-duplication by event id and the consumers' inboxes absorb.
 */
export class OutboxRelay {
  private readonly logger = new Logger('OutboxRelay');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly schema: string,
    private readonly bus: EventBus,
    private readonly pollMs = 1_000,
  ) {}

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.nudge(), this.pollMs);
    this.nudge();
  }

  /** Asks for a drain now (called right after a commit that recorded events). */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drainLoop().finally(() => (this.running = undefined));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** Publishes everything pending; resolves when the outbox is empty (or the bus fails). */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const rows: OutboxRow[] = await this.dataSource.query(
        `SELECT seq, id, type, tenant_id, payload, occurred_at, trace_context FROM ${this.schema}.outbox
          WHERE published_at IS NULL ORDER BY seq LIMIT 100`,
      );
      if (rows.length === 0) return total;
      // The batch in one publish and one mark: a failure between them only republishes.
      await this.bus.publishBatch(rows.map(toEnvelope));
      await this.dataSource.query(
        `UPDATE ${this.schema}.outbox SET published_at = now() WHERE seq = ANY($1::bigint[])`,
        [rows.map((row) => row.seq)],
      );
      total += rows.length;
    }
  }

  /** Events recorded and not yet published (the `ca_outbox_backlog` gauge). */
  async backlog(): Promise<number> {
    const rows: { count: string }[] = await this.dataSource.query(
      `SELECT count(*) AS count FROM ${this.schema}.outbox WHERE published_at IS NULL`,
    );
    return Number(rows[0]?.count ?? 0);
  }

  private async drainLoop(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.drain();
      } catch (err) {
        this.logger.warn({ err, schema: this.schema }, 'outbox relay could not publish; will retry');
        return;
      }
    } while (this.again && !this.stopped);
  }
}

function toEnvelope(row: OutboxRow): EventEnvelope {
  return {
    id: row.id,
    type: row.type,
    tenantId: row.tenant_id,
    occurredAt: new Date(row.occurred_at).toISOString(),
    payload: row.payload,
    ...(row.trace_context ? { traceContext: row.trace_context } : {}),
  };
}

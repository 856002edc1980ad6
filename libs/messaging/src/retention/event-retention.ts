import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EventBus } from '../events/event-bus';

/**
 * How long published outbox rows, inbox rows and stream messages are kept (`EVENT_RETENTION_DAYS`).
 * An inbox de-duplicates an event only while its id is kept, so the window must exceed every way
 * an event can come again: JetStream's duplicate window (10 min), a redelivery after the ack wait
 * (seconds), a relay republishing after a crash between publish and mark (seconds), a consumer
 * resuming after an outage. Seven days cover a week-long consumer outage with margin.
 */
export const DEFAULT_EVENT_RETENTION_DAYS = 7;
export const DAY_MS = 24 * 60 * 60_000;

/** How often the job runs at most: hourly for a window of days. */
export const DEFAULT_RETENTION_INTERVAL_MS = 60 * 60_000;

/**
 * How often the job runs for a window: a quarter of it, between 10 s and an hour, so a short
 * window (a benchmark's minutes) is kept to within a quarter too.
 */
export function retentionIntervalFor(retentionMs: number): number {
  return Math.min(DEFAULT_RETENTION_INTERVAL_MS, Math.max(10_000, Math.floor(retentionMs / 4)));
}

/**
 * The first run comes this long after start: not during start-up, after the redeliveries a restart
 * brings (within seconds), and still in a process that runs for less than an interval.
 */
export const FIRST_RETENTION_RUN_MS = 60_000;

/** Rows deleted per statement, so a first run over a large backlog takes no long lock. */
const CHUNK = 10_000;

export interface EventRetentionOptions {
  /** Schema whose `outbox` this service owns (published rows older than the window go). */
  outboxSchema?: string;
  /** Schema whose `inbox` this service owns (rows older than the window go). */
  inboxSchema?: string;
  /** The event bus; its in-process stream is pruned behind the slowest durable consumer. */
  events?: EventBus;
  retentionMs: number;
  /** Default: retentionIntervalFor(retentionMs). */
  intervalMs?: number;
  /** The clock (tests move it forward). */
  now?: () => Date;
}

export interface RetentionRun {
  outbox: number;
  inbox: number;
  stream: number;
}

/**
 * The retention job of a service that owns an outbox or an inbox: every replica runs it, and the
 * deletes are idempotent, so replicas need no coordination.
 */
export class EventRetention {
  private readonly logger = new Logger('EventRetention');
  private timer?: NodeJS.Timeout;
  private first?: NodeJS.Timeout;
  private running?: Promise<RetentionRun | undefined>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: EventRetentionOptions,
  ) {}

  start(): void {
    const intervalMs = this.options.intervalMs ?? retentionIntervalFor(this.options.retentionMs);
    // A short interval is its own first run.
    if (intervalMs > FIRST_RETENTION_RUN_MS) {
      this.first = setTimeout(() => void this.runLogged(), FIRST_RETENTION_RUN_MS);
      this.first.unref();
    }
    this.timer = setInterval(() => void this.runLogged(), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearTimeout(this.first);
    clearInterval(this.timer);
    await this.running;
  }

  /** One run: deletes what is older than the window; returns how many rows of each kind. */
  async runOnce(): Promise<RetentionRun> {
    const now = this.options.now?.() ?? new Date();
    const cutoff = new Date(now.getTime() - this.options.retentionMs);
    const { outboxSchema, inboxSchema, events } = this.options;
    return {
      // Only published rows: an unpublished one is still owed to the stream, however old.
      outbox: outboxSchema
        ? await this.deleteChunked(
            `${outboxSchema}.outbox`,
            'published_at IS NOT NULL AND published_at < $1',
            cutoff,
          )
        : 0,
      inbox: inboxSchema ? await this.deleteChunked(`${inboxSchema}.inbox`, 'applied_at < $1', cutoff) : 0,
      stream: events ? await events.prune(cutoff) : 0,
    };
  }

  private runLogged(): Promise<RetentionRun | undefined> {
    if (this.running) return this.running;
    this.running = this.runOnce()
      .then((run) => {
        if (run.outbox + run.inbox + run.stream > 0) this.logger.log({ ...run }, 'retention: pruned');
        return run;
      })
      .catch((err: unknown) => {
        this.logger.warn({ err }, 'retention run failed; the next one retries');
        return undefined;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async deleteChunked(table: string, condition: string, cutoff: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const result: [unknown[], number] = await this.dataSource.query(
        `DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE ${condition} LIMIT ${CHUNK})`,
        [cutoff],
      );
      total += result[1];
      if (result[1] < CHUNK) return total;
    }
  }
}

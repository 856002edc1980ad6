import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import { EventEnvelope } from '@ca/contracts';
import { Pool } from 'pg';
import {
  BatchEventHandler,
  EventBus,
  EventHandler,
  EventSubscription,
  SubscribeOptions,
  runEnd,
} from './event-bus';
import { tracedBatchHandlers, tracedHandler } from './traced-handler';

const BATCH = 100;

/**
 * EventBus for embedded mode with JetStream's semantics, kept in the embedded database:
 * `messaging.stream` is the ordered, de-duplicated log and `messaging.consumers` holds each
 * durable consumer's position. So an event survives a restart and reaches a consumer that
 * was stopped when it was published, exactly as with NATS. There is no lease to expire (unlike
 * JetStream's ack wait): the position moves only after the handler, so a consumer restarted after a
 * crash mid-event gets that event again at once.
 */
export class InProcessEventBus extends EventBus {
  private readonly logger = new Logger('InProcessEventBus');
  private readonly wake = new EventEmitter().setMaxListeners(0);
  private readonly subscriptions = new Set<EventSubscription>();

  private constructor(
    readonly pool: Pool,
    private readonly pollMs: number,
    private readonly retryDelayMs: number,
  ) {
    super();
  }

  static async open(
    databaseUrl: string,
    options: { pollMs?: number; retryDelayMs?: number } = {},
  ): Promise<InProcessEventBus> {
    const pool = new Pool({ connectionString: databaseUrl, max: 3 });
    // An idle connection dropped by the server (restart, failover) must not crash the process;
    // the pool replaces it on the next query.
    pool.on('error', (err) => new Logger('InProcessEventBus').warn({ err }, 'idle database connection lost'));
    await pool.query(`CREATE SCHEMA IF NOT EXISTS messaging`);
    await pool.query(`CREATE TABLE IF NOT EXISTS messaging.stream (
      seq bigserial PRIMARY KEY, id uuid NOT NULL UNIQUE, type text NOT NULL,
      body jsonb NOT NULL, stored_at timestamptz NOT NULL DEFAULT now())`);
    await pool.query(`CREATE TABLE IF NOT EXISTS messaging.consumers (
      durable_name text PRIMARY KEY, last_seq bigint NOT NULL DEFAULT 0)`);
    return new InProcessEventBus(pool, options.pollMs ?? 1_000, options.retryDelayMs ?? 1_000);
  }

  publish(event: EventEnvelope): Promise<void> {
    return this.publishBatch([event]);
  }

  /** One transaction and one INSERT for the whole batch; its events' seq follow the batch's order. */
  async publishBatch(events: readonly EventEnvelope[]): Promise<void> {
    if (events.length === 0) return;
    const rows = events.map((_, i) => `($${i * 3 + 1}::uuid, $${i * 3 + 2}, $${i * 3 + 3}::jsonb)`);
    const client = await this.pool.connect();
    try {
      // The lock makes commit order equal sequence order, so no consumer skips a late commit.
      await client.query('BEGIN');
      await client.query('LOCK TABLE messaging.stream IN EXCLUSIVE MODE');
      await client.query(
        `INSERT INTO messaging.stream (id, type, body) VALUES ${rows.join(', ')} ON CONFLICT (id) DO NOTHING`,
        events.flatMap((event) => [event.id, event.type, JSON.stringify(event)]),
      );
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    this.wake.emit('published');
  }

  async subscribe(
    durableName: string,
    handler: EventHandler,
    options?: SubscribeOptions,
  ): Promise<EventSubscription> {
    const traced = tracedHandler(durableName, handler);
    const batchHandlers = tracedBatchHandlers(durableName, options);
    await this.pool.query(
      `INSERT INTO messaging.consumers (durable_name) VALUES ($1) ON CONFLICT (durable_name) DO NOTHING`,
      [durableName],
    );
    let running = true;
    let nudge: () => void = () => undefined;
    const onPublished = () => nudge();
    this.wake.on('published', onPublished);
    const sleep = (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        nudge = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    const loop = (async () => {
      while (running) {
        const delivered = await this.deliverBatch(
          durableName,
          traced,
          batchHandlers,
          () => running,
          options?.onlyType,
        ).catch((err: unknown) => {
          this.logger.warn({ err, durableName }, 'event delivery failed; will retry');
          return -1;
        });
        if (!running) break;
        if (delivered === 0) await sleep(this.pollMs);
        else if (delivered < 0) await sleep(this.retryDelayMs);
      }
    })();
    const subscription: EventSubscription = {
      stop: async () => {
        running = false;
        this.wake.off('published', onPublished);
        nudge();
        await loop;
        this.subscriptions.delete(subscription);
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  /**
   * Delivers the next events after the consumer's position, handler after handler (a run of
   * consecutive events of a type with a batch handler goes to it in one call), then moves the
   * position once past those handled (also when one fails or the subscription stops midway).
   * Returns how many were delivered, -1 on a handler failure (that event comes again). A crash
   * before the move redelivers the batch's handled events: at least once, as the inboxes expect.
   */
  private async deliverBatch(
    durableName: string,
    handler: EventHandler,
    batchHandlers: Partial<Record<string, BatchEventHandler>>,
    isRunning: () => boolean,
    onlyType?: string,
  ): Promise<number> {
    // With onlyType, other events are passed over without reading their bodies.
    const { rows } = await this.pool.query<{ seq: string; body: EventEnvelope | null }>(
      `SELECT s.seq, CASE WHEN $2::text IS NULL OR s.type = $2 THEN s.body END AS body
         FROM messaging.stream s, messaging.consumers c
        WHERE c.durable_name = $1 AND s.seq > c.last_seq ORDER BY s.seq LIMIT ${BATCH}`,
      [durableName, onlyType ?? null],
    );
    const events = rows.map((row) => row.body);
    let handled: string | undefined;
    try {
      for (let start = 0; start < rows.length;) {
        if (!isRunning()) return 0;
        const event = events[start];
        if (event === null) {
          handled = rows[start].seq;
          start++;
          continue;
        }
        const batchHandler = batchHandlers[event.type];
        // Passed-over events (null) end a run.
        const end = batchHandler
          ? runEnd(
              events.map((e) => e ?? { type: '' }),
              start,
            )
          : start + 1;
        if (batchHandler) await batchHandler(events.slice(start, end) as EventEnvelope[]);
        else await handler(event);
        handled = rows[end - 1].seq;
        start = end;
      }
    } finally {
      if (handled !== undefined) {
        await this.pool.query(`UPDATE messaging.consumers SET last_seq = $2 WHERE durable_name = $1`, [
          durableName,
          handled,
        ]);
      }
    }
    return rows.length;
  }

  /** Events after the consumer's position (the same measure as JetStream's pending counts). */
  async pending(durableName: string): Promise<number> {
    const { rows } = await this.pool.query<{ pending: string }>(
      `SELECT coalesce((SELECT max(seq) FROM messaging.stream), 0) - c.last_seq AS pending
         FROM messaging.consumers c WHERE c.durable_name = $1`,
      [durableName],
    );
    return rows.length === 0 ? 0 : Math.max(0, Number(rows[0].pending));
  }

  /**
   * Deletes events stored before `olderThan` that every durable consumer has handled: an event
   * some consumer still has to get stays, however old. No consumer yet: nothing goes.
   */
  override async prune(olderThan: Date): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM messaging.stream WHERE stored_at < $1
          AND seq <= (SELECT min(last_seq) FROM messaging.consumers)`,
      [olderThan],
    );
    return rowCount ?? 0;
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.pool.end();
  }
}

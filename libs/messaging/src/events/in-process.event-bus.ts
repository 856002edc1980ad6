import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import { EventEnvelope } from '@ca/contracts';
import { Pool } from 'pg';
import { PreparingClient, prepared } from '@ca/persistence';
import {
  BatchEventHandler,
  EventBus,
  EventHandler,
  EventRoutes,
  EventSubscription,
  SubscribeOptions,
  deliveryOf,
  runEnd,
} from './event-bus';
import { AttemptCounter } from '../dead-letters/dead-letters';
import { EVENT_PARTITIONS, partitionOf } from './partition';
import { tracedBatchHandlers, tracedHandler } from './traced-handler';

const BATCH = 100;

/** With `onlyType` (parameter `$n`), other events are passed over without reading their bodies. */
const bodyUnlessPassedOver = (n: number) =>
  `CASE WHEN $${n}::text IS NULL OR s.type = $${n} THEN s.body END AS body`;

/** A claim's end, from the database clock shared by every subscriber ($4: the lease in ms). */
const LEASE_UNTIL = `now() + make_interval(secs => $4::double precision / 1000)`;

/**
 * The statements every event batch runs, prepared once per connection (prepared-statements.ts):
 * their plans are keyed lookups whatever the parameters.
 */
const INSERT_EVENTS = prepared(
  `INSERT INTO messaging.stream (id, type, body, part)
   SELECT id, type, body, part
     FROM unnest($1::uuid[], $2::text[], $3::jsonb[], $4::smallint[]) WITH ORDINALITY AS e(id, type, body, part, n)
    ORDER BY n
   ON CONFLICT (id) DO NOTHING`,
);
const CLAIM_AND_READ = prepared(
  `WITH claimed AS (
     UPDATE messaging.consumer_partitions c SET leased_by = $3, lease_until = ${LEASE_UNTIL}
      WHERE c.durable_name = $1 AND NOT (c.part = ANY($2::int[]))
        AND (c.leased_by IS NULL OR c.leased_by = $3 OR c.lease_until < now())
        AND EXISTS (SELECT 1 FROM messaging.stream s WHERE s.part = c.part AND s.seq > c.last_seq)
      RETURNING c.part, c.last_seq)
   SELECT c.part, s.seq, ${bodyUnlessPassedOver(5)}
     FROM claimed c CROSS JOIN LATERAL (
       SELECT s.seq, s.type, s.body FROM messaging.stream s
        WHERE s.part = c.part AND s.seq > c.last_seq ORDER BY s.seq LIMIT ${BATCH}) s
    ORDER BY c.part, s.seq`,
);
const READ_PARTITION = prepared(
  `SELECT s.seq, ${bodyUnlessPassedOver(3)}
     FROM messaging.stream s, messaging.consumer_partitions c
    WHERE c.durable_name = $1 AND c.part = $2 AND s.part = $2 AND s.seq > c.last_seq
    ORDER BY s.seq LIMIT ${BATCH}`,
);
const RENEW_CLAIM = prepared(
  `UPDATE messaging.consumer_partitions SET lease_until = ${LEASE_UNTIL}
    WHERE durable_name = $1 AND part = $2 AND leased_by = $3`,
);
const MOVE_POSITION = prepared(
  `UPDATE messaging.consumer_partitions SET last_seq = $4
    WHERE durable_name = $1 AND part = $2 AND leased_by = $3`,
);
const MOVE_AND_RELEASE = prepared(
  `UPDATE messaging.consumer_partitions
      SET last_seq = coalesce($4::bigint, last_seq), leased_by = NULL, lease_until = NULL
    WHERE durable_name = $1 AND part = $2 AND leased_by = $3`,
);

/** Events of a partition as read after its position (body null: passed over, `onlyType`). */
type StreamRow = { seq: string; body: EventEnvelope | null };

interface Delivered {
  /** Events read from the stream (a full batch: there may be more). */
  read: number;
  /** The seq of the last event handled, if any. */
  handledUpTo?: string;
  /** A handler failed: its event comes again after the retry delay. */
  failed?: boolean;
}

/**
 * How long a subscriber's claim on a partition lasts unless renewed (every third of it while it
 * works): a subscriber that died mid-event holds its partition this long, like JetStream's ack wait.
 */
export const DEFAULT_PARTITION_LEASE_MS = 5_000;

/**
 * How often a subscription looks for events nobody woke it for, when the database is this
 * process's alone (`ownDatabase`): every publish is this process's and wakes it at once, so the
 * look is only a safety net (a failed claim). Otherwise events of other processes (replicas on one
 * Postgres) come at the next look: every second.
 */
const OWN_DATABASE_POLL_MS = 10_000;

interface InProcessOptions {
  pollMs?: number;
  retryDelayMs?: number;
  /** See DEFAULT_PARTITION_LEASE_MS. */
  leaseMs?: number;
  /**
   * No other process uses the database (the embedded one): claims left by an earlier run are
   * released at once, and subscriptions look for unannounced events only every 10 s.
   */
  ownDatabase?: boolean;
}

/**
 * EventBus for embedded mode with JetStream's semantics, kept in the embedded database:
 * `messaging.stream` is the ordered, de-duplicated log and `messaging.consumers` holds each
 * durable consumer's position. So an event survives a restart and reaches a consumer that
 * was stopped when it was published, exactly as with NATS.
 *
 * Partitioned as on JetStream (partition.ts): `messaging.consumer_partitions` keeps a position per
 * consumer and partition; a subscriber handles a partition under a lease (one subscriber per
 * partition at a time, so a tenant's events keep their order even with several subscribers of
 * one name) and works on different partitions concurrently.
 */
export class InProcessEventBus extends EventBus {
  private readonly logger = new Logger('InProcessEventBus');
  private readonly wake = new EventEmitter().setMaxListeners(0);
  private readonly subscriptions = new Set<EventSubscription>();

  private constructor(
    readonly pool: Pool,
    private readonly pollMs: number,
    private readonly retryDelayMs: number,
    private readonly leaseMs: number,
    /** The embedded database (`ownDatabase`): it runs one statement at a time, every session's. */
    private readonly oneStatementAtATime: boolean,
  ) {
    super();
  }

  static async open(databaseUrl: string, options: InProcessOptions = {}): Promise<InProcessEventBus> {
    const pool = new Pool({ connectionString: databaseUrl, max: 4, Client: PreparingClient });
    // An idle connection dropped by the server (restart, failover) must not crash the process;
    // the pool replaces it on the next query.
    pool.on('error', (err) => new Logger('InProcessEventBus').warn({ err }, 'idle database connection lost'));
    await pool.query(`CREATE SCHEMA IF NOT EXISTS messaging`);
    await pool.query(`CREATE TABLE IF NOT EXISTS messaging.stream (
      seq bigserial PRIMARY KEY, id uuid NOT NULL UNIQUE, type text NOT NULL,
      body jsonb NOT NULL, stored_at timestamptz NOT NULL DEFAULT now())`);
    // The single position per consumer of earlier versions: read once, to start its partitions.
    await pool.query(`CREATE TABLE IF NOT EXISTS messaging.consumers (
      durable_name text PRIMARY KEY, last_seq bigint NOT NULL DEFAULT 0)`);
    await pool.query(`ALTER TABLE messaging.stream ADD COLUMN IF NOT EXISTS part smallint`);
    await pool.query(`CREATE INDEX IF NOT EXISTS stream_part_seq ON messaging.stream (part, seq)`);
    await pool.query(`CREATE TABLE IF NOT EXISTS messaging.consumer_partitions (
      durable_name text NOT NULL, part smallint NOT NULL, last_seq bigint NOT NULL DEFAULT 0,
      leased_by uuid, lease_until timestamptz, PRIMARY KEY (durable_name, part))`);
    await InProcessEventBus.partitionStoredEvents(pool);
    // An earlier run of this process (the only one on its database) holds nothing any more.
    if (options.ownDatabase)
      await pool.query(
        'UPDATE messaging.consumer_partitions SET leased_by = NULL, lease_until = NULL WHERE leased_by IS NOT NULL',
      );
    return new InProcessEventBus(
      pool,
      options.pollMs ?? (options.ownDatabase ? OWN_DATABASE_POLL_MS : 1_000),
      options.retryDelayMs ?? 1_000,
      options.leaseMs ?? DEFAULT_PARTITION_LEASE_MS,
      options.ownDatabase ?? false,
    );
  }

  /** Gives events stored by an earlier version (no partition) their tenant's partition. */
  private static async partitionStoredEvents(pool: Pool): Promise<void> {
    for (;;) {
      const { rows } = await pool.query<{ seq: string; tenant: string | null }>(
        `SELECT seq, body->>'tenantId' AS tenant FROM messaging.stream WHERE part IS NULL LIMIT 1000`,
      );
      if (rows.length === 0) return;
      await pool.query(
        `UPDATE messaging.stream s SET part = u.part
           FROM unnest($1::bigint[], $2::smallint[]) AS u(seq, part) WHERE s.seq = u.seq`,
        [rows.map((row) => row.seq), rows.map((row) => partitionOf(row.tenant ?? ''))],
      );
    }
  }

  publish(event: EventEnvelope): Promise<void> {
    return this.publishBatch([event]);
  }

  /** One INSERT for the whole batch; its events' seq follow the batch's order. */
  async publishBatch(events: readonly EventEnvelope[]): Promise<void> {
    if (events.length === 0) return;
    const rows = [
      events.map((event) => event.id),
      events.map((event) => event.type),
      events.map((event) => JSON.stringify(event)),
      events.map((event) => partitionOf(event.tenantId)),
    ];
    // No consumer may skip a late commit: commit order must equal sequence order. The embedded
    // database commits each statement before it runs the next, so the INSERT alone is enough.
    if (this.oneStatementAtATime) await this.pool.query(INSERT_EVENTS, rows);
    else await this.publishLocked(rows);
    this.wake.emit('published', new Set(events.map((event) => partitionOf(event.tenantId))));
  }

  /** On Postgres, the table's lock makes commit order equal sequence order. */
  private async publishLocked(rows: unknown[][]): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('LOCK TABLE messaging.stream IN EXCLUSIVE MODE');
      await client.query(INSERT_EVENTS, rows);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async subscribe(
    durableName: string,
    handler: EventHandler | EventRoutes,
    options?: SubscribeOptions,
  ): Promise<EventSubscription> {
    const { single, runs } = deliveryOf(handler);
    const traced = tracedHandler(durableName, single);
    const batchHandlers = tracedBatchHandlers(durableName, runs);
    // A consumer of an earlier version starts every partition at its single position.
    await this.pool.query(
      `INSERT INTO messaging.consumer_partitions (durable_name, part, last_seq)
       SELECT $1, p, coalesce((SELECT last_seq FROM messaging.consumers WHERE durable_name = $1), 0)
         FROM generate_series(0, $2::int - 1) AS p
       ON CONFLICT (durable_name, part) DO NOTHING`,
      [durableName, EVENT_PARTITIONS],
    );
    const subscriber = randomUUID();
    const attempts = new AttemptCounter(durableName, options?.deadLetters, options?.maxAttempts);
    const busy = new Set<number>();
    const workers = new Set<Promise<void>>();
    let running = true;
    const wakeUp = new Wakeup();
    // Partitions that got events while worked on here: claimed again once released. Otherwise a
    // worker's end claims nothing (its last read found the partition's end).
    const stale = new Set<number>();
    const onPublished = (parts: ReadonlySet<number>) => {
      let idle = false;
      for (const part of parts) {
        if (busy.has(part)) stale.add(part);
        else idle = true;
      }
      if (idle) wakeUp.nudge();
    };
    this.wake.on('published', onPublished);
    const onlyType = options?.onlyType;
    const deliver = (part: number, read?: StreamRow[]) =>
      this.deliverBatch(durableName, part, attempts, traced, batchHandlers, () => running, onlyType, read);
    const work = async (part: number, firstBatch: StreamRow[]) => {
      let again = false;
      try {
        await this.workPartition(durableName, part, subscriber, deliver, () => running, firstBatch);
      } catch (err) {
        this.logger.warn({ err, durableName, part }, 'event delivery failed; will retry');
        await new Promise((r) => setTimeout(r, this.retryDelayMs));
        again = true;
      } finally {
        busy.delete(part);
        if (stale.delete(part) || again) wakeUp.nudge();
      }
    };
    const loop = (async () => {
      while (running) {
        const claimed = await this.claimReadyPartitions(durableName, [...busy], subscriber, onlyType).catch(
          (err: unknown) => {
            this.logger.warn({ err, durableName }, 'event stream not readable; will retry');
            return new Map<number, StreamRow[]>();
          },
        );
        for (const [part, firstBatch] of claimed) {
          busy.add(part);
          const worker = work(part, firstBatch);
          workers.add(worker);
          void worker.finally(() => workers.delete(worker));
        }
        if (!running) break;
        await wakeUp.sleep(this.pollMs);
      }
      await Promise.all(workers);
    })();
    const subscription: EventSubscription = {
      stop: async () => {
        running = false;
        this.wake.off('published', onPublished);
        wakeUp.nudge();
        // A pool already ended (the process is going away) may never answer queued queries:
        // nothing more is delivered or recorded, so nothing to wait for.
        if (this.pool.ending) return;
        await loop;
        this.subscriptions.delete(subscription);
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  /**
   * Claims, in one statement, the partitions with events after their position that are not worked
   * on here nor leased by another subscriber (on Postgres, a concurrent claimer re-reads a row it
   * waited for, so a partition goes to one of them), with each one's first batch of events read
   * after the position the claim returned. Every statement counts in embedded mode: the embedded
   * database runs them one at a time on the main thread.
   */
  private async claimReadyPartitions(
    durableName: string,
    busy: number[],
    subscriber: string,
    onlyType: string | undefined,
  ): Promise<Map<number, StreamRow[]>> {
    const { rows } = await this.pool.query<StreamRow & { part: number }>(CLAIM_AND_READ, [
      durableName,
      busy,
      subscriber,
      this.leaseMs,
      onlyType ?? null,
    ]);
    const claimed = new Map<number, StreamRow[]>();
    for (const { part, seq, body } of rows) {
      const batch = claimed.get(Number(part)) ?? [];
      batch.push({ seq, body });
      claimed.set(Number(part), batch);
    }
    return claimed;
  }

  /**
   * Delivers a claimed partition's events batch after batch while renewing the claim, moving the
   * position past what was handled after each batch; the last move (a batch shorter than a full
   * one: nothing was left when it was read) also releases the claim. Events published meanwhile
   * wake the subscription, which claims the partition again once it is released. A failed handler
   * is retried after the retry delay, still under the claim, so nothing after it overtakes it.
   */
  private async workPartition(
    durableName: string,
    part: number,
    subscriber: string,
    deliver: (part: number, read?: StreamRow[]) => Promise<Delivered>,
    isRunning: () => boolean,
    firstBatch: StreamRow[],
  ): Promise<void> {
    const renew = setInterval(
      () => {
        this.pool.query(RENEW_CLAIM, [durableName, part, subscriber, this.leaseMs]).catch(() => undefined); // a lapsed claim only means another subscriber may take over
      },
      Math.max(100, Math.floor(this.leaseMs / 3)),
    );
    let handled: string | undefined;
    let prefetched: StreamRow[] | undefined = firstBatch;
    try {
      while (isRunning()) {
        const { read, handledUpTo, failed } = await deliver(part, prefetched);
        prefetched = undefined;
        handled = handledUpTo ?? handled;
        if (failed) {
          await this.movePosition(durableName, part, subscriber, handled);
          handled = undefined;
          await new Promise((r) => setTimeout(r, this.retryDelayMs));
          continue;
        }
        if (read < BATCH) break;
        await this.movePosition(durableName, part, subscriber, handled);
        handled = undefined;
      }
    } finally {
      clearInterval(renew);
      // The position (what was handled, also when a handler failed or the subscription stopped
      // midway) and the release in one statement, if this subscriber still holds the partition.
      await this.pool.query(MOVE_AND_RELEASE, [durableName, part, subscriber, handled ?? null]);
    }
  }

  private async movePosition(
    durableName: string,
    part: number,
    subscriber: string,
    handled: string | undefined,
  ): Promise<void> {
    if (handled === undefined) return;
    await this.pool.query(MOVE_POSITION, [durableName, part, subscriber, handled]);
  }

  /**
   * Delivers the partition's next events after its position, handler after handler (a run of
   * consecutive events of a type with a batch handler goes to it in one call). Returns how many
   * were read, the last one handled (the caller moves the position past it) and whether a handler
   * failed (that event comes again). A crash before the move redelivers the batch's handled
   * events: at least once, as the inboxes expect. `read`: the batch the claim already read.
   */
  private async deliverBatch(
    durableName: string,
    part: number,
    attempts: AttemptCounter,
    handler: EventHandler,
    batchHandlers: Partial<Record<string, BatchEventHandler>>,
    isRunning: () => boolean,
    onlyType?: string,
    read?: StreamRow[],
  ): Promise<Delivered> {
    const rows =
      read ?? (await this.pool.query<StreamRow>(READ_PARTITION, [durableName, part, onlyType ?? null])).rows;
    const events = rows.map((row) => row.body);
    let handledUpTo: string | undefined;
    for (let start = 0; start < rows.length;) {
      if (!isRunning()) return { read: 0, handledUpTo };
      const event = events[start];
      if (event === null) {
        handledUpTo = rows[start].seq;
        start++;
        continue;
      }
      const batchHandler = batchHandlers[event.type];
      // Passed-over events (null) end a run; after a failure, events come one by one, so that
      // the attempts count against the event that fails.
      const end =
        batchHandler && !attempts.failedBefore(event)
          ? runEnd(
              events.map((e) => e ?? { type: '' }),
              start,
            )
          : start + 1;
      const run = events.slice(start, end) as EventEnvelope[];
      try {
        if (batchHandler) await batchHandler(run);
        else await handler(event);
        attempts.succeeded(run);
      } catch (err) {
        // A poison event, set aside after its last attempt, counts as handled.
        if (!(await attempts.failed(run, err))) {
          this.logger.warn({ err, durableName, eventId: event.id }, 'event handler failed; will retry');
          return { read: rows.length, handledUpTo, failed: true };
        }
      }
      handledUpTo = rows[end - 1].seq;
      start = end;
    }
    return { read: rows.length, handledUpTo };
  }

  /** Events after the consumer's position (the same measure as JetStream's pending counts). */
  async pending(durableName: string): Promise<number> {
    const { rows } = await this.pool.query<{ pending: string }>(
      `SELECT count(*) AS pending FROM messaging.consumer_partitions c
         JOIN messaging.stream s ON s.part = c.part AND s.seq > c.last_seq
        WHERE c.durable_name = $1`,
      [durableName],
    );
    return Number(rows[0]?.pending ?? 0);
  }

  /**
   * Deletes events stored before `olderThan` that every durable consumer has handled (its
   * partition's position is past them): an event some consumer still has to get stays, however
   * old. No consumer yet: nothing goes.
   */
  override async prune(olderThan: Date): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM messaging.stream s WHERE s.stored_at < $1
          AND EXISTS (SELECT 1 FROM messaging.consumer_partitions)
          AND NOT EXISTS (SELECT 1 FROM messaging.consumer_partitions c
                           WHERE c.part = s.part AND c.last_seq < s.seq)`,
      [olderThan],
    );
    return rowCount ?? 0;
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.pool.end();
  }
}

/**
 * Wakes a subscription's loop: a nudge that comes while the loop is not asleep (it is claiming)
 * is kept, so the next sleep returns at once instead of missing the events until the next poll.
 */
class Wakeup {
  private pending = false;
  private resolve?: () => void;

  nudge(): void {
    if (this.resolve) {
      this.resolve();
      this.resolve = undefined;
    } else {
      this.pending = true;
    }
  }

  sleep(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.resolve = undefined;
        resolve();
      }, ms);
      this.resolve = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

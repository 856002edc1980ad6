import { EventEnvelope } from '@ca/contracts';
import {
  AckPolicy,
  ConsumerConfig,
  ConsumerUpdateConfig,
  DeliverPolicy,
  DiscardPolicy,
  JSONCodec,
  JetStreamClient,
  JetStreamManager,
  JsMsg,
  NatsConnection,
  RetentionPolicy,
  StorageType,
  nanos,
} from 'nats';
import { Logger } from '@nestjs/common';
import {
  EventBus,
  EventHandler,
  EventRoutes,
  EventSubscription,
  SubscribeOptions,
  deliveryOf,
} from './event-bus';
import { AttemptCounter } from '../dead-letters/dead-letters';
import { allPartitions, partitionOf, partitionToken } from './partition';
import { STREAM_OWNER, StreamRole, WaitReporter, ensureStream } from './stream-setup';
import { tracedBatchHandlers, tracedHandler } from './traced-handler';

export interface JetStreamOptions {
  /** Stream that keeps every event; default `CA_EVENTS`. */
  streamName: string;
  /**
   * Subject prefix; an event of type `ca.initialized` of a tenant in partition 7 goes to
   * `<prefix>.p07.ca.initialized` (see partition.ts).
   */
  subjectPrefix: string;
  /**
   * How long a delivered event may stay unacknowledged before JetStream redelivers it: the delay
   * an event in flight when its consumer (or NATS) crashed waits before another delivery. Default
   * DEFAULT_ACK_WAIT_MS; a handler that runs longer keeps its event by progress heartbeats.
   */
  ackWaitMs?: number;
  /** Delay before a failed event is retried. */
  retryDelayMs?: number;
  /**
   * The stream's `max_age`: messages older than this are removed by the server (EventRetention's
   * window). Set when the stream is created and applied to an existing stream; unset keeps them.
   */
  maxAgeMs?: number;
  /** 'owner': creates the stream and restores its settings at start; 'user' (default): waits for it. */
  streamRole?: StreamRole;
  /** Told what the start-up waits for (a stream its owner has not created yet). */
  report?: WaitReporter;
}

/**
 * Short, so that a revocation in flight when its consumer or NATS crashed still reaches the CRL
 * and OCSP within seconds (docs/api.md#propagation: within 5 s); slow handlers heartbeat instead.
 */
export const DEFAULT_ACK_WAIT_MS = 5_000;

const codec = JSONCodec<EventEnvelope>();

/** How long JetStream drops a re-published event id (docs/operations.md, NATS and JetStream). */
const DUPLICATE_WINDOW_MS = 10 * 60_000;

/** EventBus on NATS JetStream: file storage, de-duplication by event id (Nats-Msg-Id). */
export class JetStreamEventBus extends EventBus {
  private readonly logger = new Logger('JetStream');
  private readonly subscriptions = new Set<EventSubscription>();

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly options: JetStreamOptions,
  ) {
    super();
  }

  static async connect(nc: NatsConnection, options: JetStreamOptions): Promise<JetStreamEventBus> {
    const jsm = await nc.jetstreamManager();
    const config = {
      name: options.streamName,
      subjects: [`${options.subjectPrefix}.>`],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      // JetStream refuses a duplicate window longer than max_age (a retention window in minutes).
      duplicate_window: nanos(Math.min(DUPLICATE_WINDOW_MS, options.maxAgeMs || DUPLICATE_WINDOW_MS)),
      ...(options.maxAgeMs ? { max_age: nanos(options.maxAgeMs) } : {}),
    };
    await ensureStream(jsm, config, {
      role: options.streamRole ?? 'user',
      owner: STREAM_OWNER,
      report: options.report,
    });
    return new JetStreamEventBus(nc, nc.jetstream(), jsm, options);
  }

  async publish(event: EventEnvelope): Promise<void> {
    await this.publishOne(event);
  }

  /**
   * Pipelined: every publish is sent before the first ack is awaited. One connection delivers them
   * to the server in order, so the stream keeps the batch's order; the acks are awaited in that
   * order. A failed one fails the batch, which the caller republishes whole (Nats-Msg-Id de-dup).
   */
  async publishBatch(events: readonly EventEnvelope[]): Promise<void> {
    const acks = events.map((event) => this.publishOne(event));
    // Every ack is observed, so a second failure is not an unhandled rejection.
    const settled = await Promise.allSettled(acks);
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }

  private async publishOne(event: EventEnvelope): Promise<void> {
    const partition = partitionToken(partitionOf(event.tenantId));
    await this.js.publish(`${this.options.subjectPrefix}.${partition}.${event.type}`, codec.encode(event), {
      msgID: event.id,
    });
  }

  /**
   * One durable consumer per partition (`<durable>-p00` …), each with one event in flight, so a
   * tenant's events are handled in stream order while partitions proceed concurrently; replicas
   * subscribing with the same name share the partitions (JetStream hands each partition's next
   * event to whichever replica pulls it, only after the previous one's ack). A batch handler gets
   * runs of one event here: acking only committed events leaves no longer run to take.
   */
  async subscribe(
    durableName: string,
    handler: EventHandler | EventRoutes,
    options?: SubscribeOptions,
  ): Promise<EventSubscription> {
    const { streamName } = this.options;
    const attempts = new AttemptCounter(durableName, options?.deadLetters, options?.maxAttempts);
    const handle = this.messageHandler(durableName, handler, attempts);
    const startSeq = await this.drainLegacyConsumer(durableName, handle);
    const iterators: { close(): Promise<void | Error> }[] = [];
    const loops: Promise<void>[] = [];
    for (const partition of allPartitions()) {
      const name = partitionConsumerName(durableName, partition);
      this.filters.set(name, this.filterOf(partition, options?.onlyType));
      await this.ensureConsumer(name, this.filters.get(name)!, startSeq);
      const consumer = await this.js.consumers.get(streamName, name);
      const messages = await consumer.consume({ max_messages: 1 });
      iterators.push(messages);
      loops.push(
        (async () => {
          for await (const message of messages) await handle(message);
        })().catch((err: unknown) => {
          // The connection closed under it (a crash, a shutdown): nothing left to acknowledge.
          this.logger.warn({ err, consumer: name }, 'event delivery ended');
        }),
      );
    }
    // A connection that closes under the consumers (a crash, a shutdown) does not stop their
    // iterators: their idle-heartbeat checks would fire forever and keep the process alive.
    void this.nc.closed().then(() => {
      for (const messages of iterators) void messages.close();
    });
    const subscription: EventSubscription = {
      stop: async () => {
        this.subscriptions.delete(subscription);
        // On a closed connection nothing is delivered or acknowledged any more, and its
        // iterators may never end: nothing to wait for.
        if (this.nc.isClosed()) return;
        await Promise.all(iterators.map((messages) => messages.close()));
        await Promise.all(loops);
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  /** Handles one delivered message: decode, run the handler under a heartbeat, then ack or nak. */
  private messageHandler(
    durableName: string,
    handler: EventHandler | EventRoutes,
    attempts: AttemptCounter,
  ): (message: JsMsg) => Promise<void> {
    const { single, runs } = deliveryOf(handler);
    const traced = tracedHandler(durableName, single);
    const batchHandlers = tracedBatchHandlers(durableName, runs);
    const retryDelay = this.options.retryDelayMs ?? 1_000;
    return async (message) => {
      let event: EventEnvelope;
      try {
        event = codec.decode(message.data);
      } catch {
        // An empty body may mean the consumer was reshaped (headers_only): the event is intact in
        // the stream, so restore the consumer and have the event come again in full.
        if (await this.restoredConsumerOf(message)) {
          message.nak(retryDelay);
          return;
        }
        this.logger.error({ subject: message.subject, seq: message.seq }, 'undecodable event dropped');
        message.term();
        return;
      }
      const stopHeartbeat = this.heartbeat(message);
      let handled: boolean;
      try {
        const batchHandler = batchHandlers[event.type];
        await (batchHandler ? batchHandler([event]) : traced(event));
        attempts.succeeded([event]);
        handled = true;
      } catch (err) {
        // A poison event, set aside after its last attempt, counts as handled.
        handled = await attempts.failed([event], err).catch(() => false);
        if (!handled)
          this.logger.warn({ err, eventId: event.id, type: event.type }, 'event handler failed; will retry');
      } finally {
        stopHeartbeat();
      }
      // Without a connection the answer is lost; JetStream redelivers after the ack wait.
      try {
        // Backoff: an event waiting for another (its CA's) gives it time to come.
        if (handled) message.ack();
        else message.nak(retryDelay * 2 ** Math.min(Math.max(attempts.failuresOf(event) - 1, 0), 4));
      } catch (err) {
        this.logger.warn({ err, eventId: event.id }, 'acknowledgement not sent; the event comes again');
      }
    };
  }

  /** Partition consumers of this process and their filter, for checks at delivery. */
  private readonly filters = new Map<string, string>();

  /** Whether the consumer that delivered `message` had been reshaped and was restored now. */
  private async restoredConsumerOf(message: JsMsg): Promise<boolean> {
    const name = message.info.consumer;
    const filter = this.filters.get(name);
    if (filter === undefined) return false;
    return this.ensureConsumer(name, filter).catch((err: unknown) => {
      this.logger.error({ err, consumer: name }, 'consumer could not be checked');
      return false;
    });
  }

  private filterOf(partition: number, onlyType?: string): string {
    return `${this.options.subjectPrefix}.${partitionToken(partition)}.${onlyType ?? '>'}`;
  }

  /**
   * Migration from the single durable consumer of earlier versions (`<durable>`, every subject):
   * before the partition consumers exist, what it has not acknowledged is handled through it, in
   * stream order (also events already published on partition subjects); the partition consumers
   * then start right after its acknowledged floor. Returns that sequence, or undefined when there
   * is nothing to migrate (a new consumer, or partition consumers already made). The old consumer
   * is left in place, idle (services may not delete consumers); an operator may remove it.
   */
  private async drainLegacyConsumer(
    durableName: string,
    handle: (message: JsMsg) => Promise<void>,
  ): Promise<number | undefined> {
    const { streamName } = this.options;
    const info = (name: string) => this.jsm.consumers.info(streamName, name).catch(() => undefined);
    if (!(await info(durableName))) return undefined;
    if (await info(partitionConsumerName(durableName, 0))) return undefined;
    const legacy = await this.js.consumers.get(streamName, durableName);
    for (;;) {
      const state = await legacy.info();
      if (state.num_pending + state.num_ack_pending === 0) {
        this.logger.log(
          { durableName, fromSeq: state.ack_floor.stream_seq + 1 },
          'consumer moved to partitions',
        );
        return state.ack_floor.stream_seq + 1;
      }
      const message = await legacy.next({ expires: 1_000 });
      if (message) await handle(message);
    }
  }

  private get ackWaitMs(): number {
    return this.options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
  }

  /** The settings every partition consumer is created with, and checked against at every start. */
  private consumerConfig(name: string, filterSubject: string): Partial<ConsumerConfig> {
    return {
      durable_name: name,
      ack_policy: AckPolicy.Explicit,
      filter_subject: filterSubject,
      ack_wait: nanos(this.ackWaitMs),
      // One at a time keeps the partition's order, so each tenant's (issued before revoked).
      max_ack_pending: 1,
      headers_only: false,
      max_deliver: -1,
    };
  }

  /**
   * Creates a durable consumer, or checks an existing one: a setting changed by someone else (a
   * password that may update this consumer could set `headers_only: true`, so that every event
   * arrives empty) is put back, and the service logs it. The fields an update cannot change
   * (delivery and ack policy) cannot have been changed either.
   */
  private async ensureConsumer(name: string, filterSubject: string, startSeq?: number): Promise<boolean> {
    const { streamName } = this.options;
    const wanted = this.consumerConfig(name, filterSubject);
    const existing = await this.jsm.consumers.info(streamName, name).catch(() => undefined);
    if (!existing) {
      await this.jsm.consumers.add(streamName, {
        ...wanted,
        ...(startSeq === undefined
          ? { deliver_policy: DeliverPolicy.All }
          : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: startSeq }),
      });
      return false;
    }
    const changed = changedConsumerSettings(existing.config, wanted);
    if (changed.length === 0) return false;
    const found = Object.fromEntries(
      changed.map((key) => [key, (existing.config as unknown as Record<string, unknown>)[key]]),
    );
    // Consumers created with the former 30 s ack wait are brought to this one quietly.
    const quiet = changed.length === 1 && changed[0] === 'ack_wait';
    await this.jsm.consumers.update(streamName, name, {
      ...(wanted as ConsumerUpdateConfig),
      // A consumer someone pointed at a push subject goes back to pull (its deliver_subject cleared).
      ...(existing.config.deliver_subject ? { deliver_subject: undefined } : {}),
    });
    if (quiet) {
      this.logger.log({ name, ackWaitMs: this.ackWaitMs }, 'consumer ack wait updated');
      return false;
    }
    this.logger.warn(
      { name, changed, found },
      'consumer settings were changed outside this service: restored',
    );
    return true;
  }

  /**
   * While a handler runs (a big CRL), tells JetStream every third of the ack wait that the event
   * is still being worked on (AckProgress, `+WIP`), which restarts its ack wait: it is redelivered
   * only when its consumer is really gone. Returns the function that stops the heartbeat.
   */
  private heartbeat(message: JsMsg): () => void {
    const timer = setInterval(
      () => {
        try {
          message.working();
        } catch {
          // Disconnected: nothing to tell; the ack wait decides.
        }
      },
      Math.max(100, Math.floor(this.ackWaitMs / 3)),
    );
    return () => clearInterval(timer);
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
  }

  /**
   * Over the partition consumers (or the single consumer of an earlier version when they do not
   * exist yet): not yet delivered (num_pending) plus delivered and not acknowledged (num_ack_pending).
   */
  async pending(durableName: string): Promise<number> {
    const lag = async (name: string) => {
      try {
        const info = await this.jsm.consumers.info(this.options.streamName, name);
        return info.num_pending + info.num_ack_pending;
      } catch {
        return undefined;
      }
    };
    const partitions = await Promise.all(
      allPartitions().map((p) => lag(partitionConsumerName(durableName, p))),
    );
    if (partitions.some((n) => n !== undefined))
      return partitions.reduce<number>((sum, n) => sum + (n ?? 0), 0);
    return (await lag(durableName)) ?? 0;
  }

  get connection(): NatsConnection {
    return this.nc;
  }
}

/** The fields of `wanted` that `actual` does not have (absent on the server: its default). */
export function changedConsumerSettings(
  actual: Partial<ConsumerConfig>,
  wanted: Partial<ConsumerConfig>,
): string[] {
  const have = actual as unknown as Record<string, unknown>;
  const defaults: Record<string, unknown> = { headers_only: false, max_deliver: -1 };
  return Object.entries(wanted)
    .filter(([key, value]) => (have[key] ?? defaults[key]) !== value)
    .map(([key]) => key)
    .concat(actual.deliver_subject ? ['deliver_subject'] : []);
}

/** The durable consumer of one partition: `<durable>-p07` (consumer names may not contain dots). */
export function partitionConsumerName(durableName: string, partition: number): string {
  return `${durableName}-${partitionToken(partition)}`;
}

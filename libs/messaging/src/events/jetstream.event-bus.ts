import { EventEnvelope } from '@ca/contracts';
import {
  AckPolicy,
  DeliverPolicy,
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
import { EventBus, EventHandler, EventSubscription, SubscribeOptions } from './event-bus';
import { tracedBatchHandlers, tracedHandler } from './traced-handler';

export interface JetStreamOptions {
  /** Stream that keeps every event; default `CA_EVENTS`. */
  streamName: string;
  /** Subject prefix; an event of type `ca.initialized` goes to `<prefix>.ca.initialized`. */
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
}

/**
 * Short, so that a revocation in flight when its consumer or NATS crashed still reaches the CRL
 * and OCSP within seconds (docs/api.md#propagation: within 5 s); slow handlers heartbeat instead.
 */
export const DEFAULT_ACK_WAIT_MS = 5_000;

const codec = JSONCodec<EventEnvelope>();

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
      duplicate_window: nanos(10 * 60_000),
      ...(options.maxAgeMs ? { max_age: nanos(options.maxAgeMs) } : {}),
    };
    const existing = await jsm.streams.info(options.streamName).catch(() => undefined);
    if (!existing) await jsm.streams.add(config);
    else if (options.maxAgeMs && existing.config.max_age !== nanos(options.maxAgeMs)) {
      await JetStreamEventBus.applyMaxAge(jsm, options.streamName, options.maxAgeMs);
    }
    return new JetStreamEventBus(nc, nc.jetstream(), jsm, options);
  }

  /**
   * Brings an existing stream's max_age to the retention window. A user without the right to
   * update streams (the stream managed by an operator) keeps the stream as it is, with a warning.
   */
  private static async applyMaxAge(
    jsm: JetStreamManager,
    streamName: string,
    maxAgeMs: number,
  ): Promise<void> {
    try {
      await jsm.streams.update(streamName, { max_age: nanos(maxAgeMs) });
    } catch (err) {
      new Logger('JetStream').warn(
        { err, streamName, maxAgeMs },
        'could not set the stream max_age to the event retention window; set it on the stream',
      );
    }
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
    await this.js.publish(`${this.options.subjectPrefix}.${event.type}`, codec.encode(event), {
      msgID: event.id,
    });
  }

  /**
   * A batch handler gets runs of one event here: with one event in flight per consumer (the
   * order, see ensureConsumer), the next event is delivered only after this one's ack, so acking
   * only committed events leaves no longer run to take.
   */
  async subscribe(
    durableName: string,
    handler: EventHandler,
    options?: SubscribeOptions,
  ): Promise<EventSubscription> {
    const { streamName } = this.options;
    const traced = tracedHandler(durableName, handler);
    const batchHandlers = tracedBatchHandlers(durableName, options);
    await this.ensureConsumer(durableName, options?.onlyType);
    const consumer = await this.js.consumers.get(streamName, durableName);
    const messages = await consumer.consume({ max_messages: 64 });
    const retryDelay = this.options.retryDelayMs ?? 1_000;
    const loop = (async () => {
      for await (const message of messages) {
        let event: EventEnvelope;
        try {
          event = codec.decode(message.data);
        } catch {
          this.logger.error({ subject: message.subject, seq: message.seq }, 'undecodable event dropped');
          message.term();
          continue;
        }
        const stopHeartbeat = this.heartbeat(message);
        let handled: boolean;
        try {
          const batchHandler = batchHandlers[event.type];
          await (batchHandler ? batchHandler([event]) : traced(event));
          handled = true;
        } catch (err) {
          this.logger.warn({ err, eventId: event.id, type: event.type }, 'event handler failed; will retry');
          handled = false;
        } finally {
          stopHeartbeat();
        }
        // Without a connection the answer is lost; JetStream redelivers after the ack wait.
        try {
          if (handled) message.ack();
          else message.nak(retryDelay);
        } catch (err) {
          this.logger.warn({ err, eventId: event.id }, 'acknowledgement not sent; the event comes again');
        }
      }
    })();
    const subscription: EventSubscription = {
      stop: async () => {
        this.subscriptions.delete(subscription);
        await messages.close();
        await loop;
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  private get ackWaitMs(): number {
    return this.options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;
  }

  /**
   * Creates the durable consumer, or brings an existing one to this ack wait (consumers created
   * with the former 30 s keep it otherwise); ack_wait is one of the fields a consumer update may
   * change (nats-server 2.9), unlike its delivery or ack policy.
   */
  private async ensureConsumer(durableName: string, onlyType?: string): Promise<void> {
    const { streamName, subjectPrefix } = this.options;
    const ackWait = nanos(this.ackWaitMs);
    const existing = await this.jsm.consumers.info(streamName, durableName).catch(() => undefined);
    if (!existing) {
      await this.jsm.consumers.add(streamName, {
        durable_name: durableName,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subject: onlyType ? `${subjectPrefix}.${onlyType}` : `${subjectPrefix}.>`,
        ack_wait: ackWait,
        // One at a time keeps the stream's order per consumer (issued before revoked).
        max_ack_pending: 1,
      });
    } else if (existing.config.ack_wait !== ackWait) {
      await this.jsm.consumers.update(streamName, durableName, { ack_wait: ackWait });
      this.logger.log({ durableName, ackWaitMs: this.ackWaitMs }, 'consumer ack wait updated');
    }
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

  /** Not yet delivered (num_pending) plus delivered and not yet acknowledged (num_ack_pending). */
  async pending(durableName: string): Promise<number> {
    try {
      const info = await this.jsm.consumers.info(this.options.streamName, durableName);
      return info.num_pending + info.num_ack_pending;
    } catch {
      return 0;
    }
  }

  get connection(): NatsConnection {
    return this.nc;
  }
}

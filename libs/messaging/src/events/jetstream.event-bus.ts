import { EventEnvelope } from '@ca/contracts';
import {
  AckPolicy,
  DeliverPolicy,
  JSONCodec,
  JetStreamClient,
  JetStreamManager,
  NatsConnection,
  RetentionPolicy,
  StorageType,
  nanos,
} from 'nats';
import { Logger } from '@nestjs/common';
import { EventBus, EventHandler, EventSubscription } from './event-bus';
import { tracedHandler } from './traced-handler';

export interface JetStreamOptions {
  /** Stream that keeps every event; default `CA_EVENTS`. */
  streamName: string;
  /** Subject prefix; an event of type `ca.initialized` goes to `<prefix>.ca.initialized`. */
  subjectPrefix: string;
  /** How long a delivered event may stay unacknowledged before JetStream redelivers it. */
  ackWaitMs?: number;
  /** Delay before a failed event is retried. */
  retryDelayMs?: number;
}

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
    };
    try {
      await jsm.streams.info(options.streamName);
    } catch {
      await jsm.streams.add(config);
    }
    return new JetStreamEventBus(nc, nc.jetstream(), jsm, options);
  }

  async publish(event: EventEnvelope): Promise<void> {
    await this.js.publish(`${this.options.subjectPrefix}.${event.type}`, codec.encode(event), {
      msgID: event.id,
    });
  }

  async subscribe(durableName: string, handler: EventHandler): Promise<EventSubscription> {
    const { streamName, subjectPrefix } = this.options;
    const traced = tracedHandler(durableName, handler);
    try {
      await this.jsm.consumers.info(streamName, durableName);
    } catch {
      await this.jsm.consumers.add(streamName, {
        durable_name: durableName,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subject: `${subjectPrefix}.>`,
        ack_wait: nanos(this.options.ackWaitMs ?? 30_000),
        // One at a time keeps the stream's order per consumer (issued before revoked).
        max_ack_pending: 1,
      });
    }
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
        try {
          await traced(event);
          message.ack();
        } catch (err) {
          this.logger.warn({ err, eventId: event.id, type: event.type }, 'event handler failed; will retry');
          message.nak(retryDelay);
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

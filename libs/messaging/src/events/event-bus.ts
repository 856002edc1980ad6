import { EventEnvelope } from '@ca/contracts';

export type EventHandler = (event: EventEnvelope) => Promise<void>;

/**
 * Applies a run of consecutive events of one type together: all take effect (one transaction) or
 * none (it throws, and the whole run comes again, from its first event). Idempotent per event, as a
 * handler is (see applyOnceEach).
 */
export type BatchEventHandler = (events: readonly EventEnvelope[]) => Promise<void>;

export interface SubscribeOptions {
  /**
   * Per event type, the handler of runs of consecutive events of that type, instead of the event
   * handler. Events of other types between them keep their one-by-one handling and their order.
   */
  batchHandlers?: Record<string, BatchEventHandler>;
  /**
   * The one event type this consumer handles, when it handles one only: JetStream then delivers
   * only that type's subject (a consumer of a rare event does not wade through every issuance).
   * Set when the durable consumer is created. In process, other events are passed over without
   * reading their bodies.
   */
  onlyType?: string;
}

export interface EventSubscription {
  /** Stops delivery; events published meanwhile wait for the next subscription of the same name. */
  stop(): Promise<void>;
}

/**
 * Durable publish/subscribe with JetStream semantics: events are kept in an ordered stream;
 * each durable consumer (one name per consuming service) resumes where it stopped and gets
 * every event at least once; the handler's effect must be idempotent (see applyOnce).
 * A handler that throws gets the event again later; nothing after it overtakes it.
 */
export abstract class EventBus {
  abstract publish(event: EventEnvelope): Promise<void>;
  /**
   * Appends events in the order given, as publish would one by one, but at the cost of about one
   * publish. Resolves when all are stored; on a failure some may be stored and others not, so the
   * caller publishes them all again (the stream drops the duplicates by event id).
   */
  abstract publishBatch(events: readonly EventEnvelope[]): Promise<void>;
  abstract subscribe(
    durableName: string,
    handler: EventHandler,
    options?: SubscribeOptions,
  ): Promise<EventSubscription>;
  abstract close(): Promise<void>;
  /** Events of the stream the durable consumer has not acknowledged yet (its lag; 0 if it does not exist). */
  abstract pending(durableName: string): Promise<number>;
  /**
   * Deletes stored events older than `olderThan` that every durable consumer is past; returns how
   * many. A bus whose server enforces the retention itself (JetStream `max_age`) deletes nothing here.
   */
  async prune(olderThan: Date): Promise<number> {
    void olderThan;
    return 0;
  }
}

/** Routes events by type to handlers; types a service does not handle are acknowledged and skipped. */
export function routeByType(handlers: Record<string, EventHandler>): EventHandler {
  return async (event) => {
    const handler = handlers[event.type];
    if (handler) await handler(event);
  };
}

/** Where a run of consecutive events of `events[start]`'s type ends (exclusive). */
export function runEnd(events: readonly { type: string }[], start: number): number {
  let end = start + 1;
  while (end < events.length && events[end].type === events[start].type) end++;
  return end;
}

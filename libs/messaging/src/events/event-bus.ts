import { EventEnvelope, EventOf, PayloadEventType } from '@ca/contracts';
import type { DeadLetterSink } from '../dead-letters/dead-letters';

export type EventHandler = (event: EventEnvelope) => Promise<void>;

/**
 * Applies a run of consecutive events of one type (of one partition), in order; a single event is
 * a run of one. If it throws, the whole run comes again, from its first event, so it must be
 * idempotent per event (applyOnce, or applyOnceEach for one transaction per run).
 */
export type BatchEventHandler<E extends EventEnvelope = EventEnvelope> = (
  events: readonly E[],
) => Promise<void>;

/**
 * A consumer's handlers by event type, the one handler shape (see BatchEventHandler); events of
 * types without a handler are acknowledged and skipped. Built by routeByType or routeValidated.
 */
export interface EventRoutes {
  readonly routes: Readonly<Record<string, BatchEventHandler>>;
}

/** Handlers keyed by event type, each receiving envelopes of its type's payload. */
export type TypedEventHandlers = {
  [K in PayloadEventType]?: BatchEventHandler<EventOf<K>>;
};

export interface SubscribeOptions {
  /**
   * Where an event goes once its handler has failed `maxAttempts` times (a poison event): it is
   * recorded there and acknowledged, and the events of its partition move on. Without one, a
   * failing event is retried until it succeeds.
   */
  deadLetters?: DeadLetterSink;
  /** Failed handlings before an event goes to `deadLetters`; default DEFAULT_MAX_ATTEMPTS (5). */
  maxAttempts?: number;
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
  /** `handler` gets every event; `EventRoutes` hands each type's runs to that type's handler. */
  abstract subscribe(
    durableName: string,
    handler: EventHandler | EventRoutes,
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

/**
 * Routes events by type to handlers; types a service does not handle are acknowledged and
 * skipped. Untyped (any type name): tests and tools; services use routeValidated.
 */
export function routeByType(handlers: Readonly<Record<string, BatchEventHandler>>): EventRoutes {
  return { routes: { ...handlers } };
}

/** The per-event handler and the per-type run handlers a bus delivers to. */
export function deliveryOf(handler: EventHandler | EventRoutes): {
  single: EventHandler;
  runs: Readonly<Record<string, BatchEventHandler>>;
} {
  if (typeof handler === 'function') return { single: handler, runs: {} };
  const { routes } = handler;
  const own = (type: string) =>
    Object.prototype.hasOwnProperty.call(routes, type) ? routes[type] : undefined;
  return {
    single: async (event) => {
      await own(event.type)?.([event]);
    },
    runs: routes,
  };
}

/** Where a run of consecutive events of `events[start]`'s type ends (exclusive). */
export function runEnd(events: readonly { type: string }[], start: number): number {
  let end = start + 1;
  while (end < events.length && events[end].type === events[start].type) end++;
  return end;
}

/** A run handler that applies the run's events one by one, in order (each its own transaction). */
export function each<E extends EventEnvelope>(apply: (event: E) => Promise<unknown>): BatchEventHandler<E> {
  return async (events) => {
    for (const event of events) await apply(event);
  };
}

import { Logger } from '@nestjs/common';
import {
  Attributes,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  propagation,
  trace,
} from '@opentelemetry/api';
import { EventEnvelope } from '@ca/contracts';
import { REQUEST_ID_HEADER, tracerOf, withRequestId } from '@ca/observability';
import { BatchEventHandler, EventHandler } from './event-bus';

/**
 * Runs a consumer's handler in a span that continues the trace of the request that caused the
 * event (the W3C context the outbox kept beside it), so a revocation's trace shows the CRL and
 * OCSP work it set off, and the handler's log lines carry that request's id and trace id. Events
 * without a context (recorded outside a request) start their own.
 */
export function tracedHandler(durableName: string, handler: EventHandler): EventHandler {
  const run = consumerRun(durableName);
  return (event) =>
    run(event, { 'messaging.message.id': event.id }, { eventId: event.id }, 'event handled', () =>
      handler(event),
    );
}

/**
 * Runs a batch handler in one span per run, continuing the trace of the run's first event (a run
 * is one transaction; the other events' requests see it through the `messaging.batch.message_count`).
 */
export function tracedBatchHandler(durableName: string, handler: BatchEventHandler): BatchEventHandler {
  const run = consumerRun(durableName);
  return (events) =>
    run(
      events[0],
      { 'messaging.batch.message_count': events.length },
      { eventIds: events.map((event) => event.id) },
      'events handled',
      () => handler(events),
    );
}

/** One consumer span and one debug line around `work`, in the context of `event`'s request. */
function consumerRun(durableName: string) {
  const tracer = tracerOf(durableName);
  const logger = new Logger('EventConsumer');
  return async (
    event: EventEnvelope,
    attributes: Attributes,
    logFields: Record<string, unknown>,
    message: string,
    work: () => Promise<void>,
  ): Promise<void> => {
    const started = Date.now();
    const parent = event.traceContext ? propagation.extract(ROOT_CONTEXT, event.traceContext) : ROOT_CONTEXT;
    const span = tracer.startSpan(
      `${event.type} process`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.operation.type': 'process',
          'messaging.consumer.group.name': durableName,
          ...attributes,
          'ca.service': durableName,
        },
      },
      parent,
    );
    const ctx = withRequestId(trace.setSpan(parent, span), event.traceContext?.[REQUEST_ID_HEADER]);
    const handled = (outcome: string) =>
      context.with(ctx, () =>
        logger.debug(
          {
            consumer: durableName,
            type: event.type,
            ...logFields,
            outcome,
            durationMs: Date.now() - started,
          },
          message,
        ),
      );
    try {
      await context.with(ctx, work);
      handled('ok');
    } catch (error) {
      handled('failed');
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  };
}

/** Every run handler, traced. */
export function tracedBatchHandlers(
  durableName: string,
  runs: Readonly<Record<string, BatchEventHandler>>,
): Partial<Record<string, BatchEventHandler>> {
  return Object.fromEntries(
    Object.entries(runs).map(([type, h]) => [type, tracedBatchHandler(durableName, h)]),
  );
}

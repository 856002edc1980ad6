import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import { tracerOf } from '@ca/observability';
import { EventHandler } from './event-bus';

/**
 * Runs a consumer's handler in a span that continues the trace of the request that caused the
 * event (the W3C context the outbox kept beside it), so a revocation's trace shows the CRL and
 * OCSP work it set off. Events without a context (recorded outside a request) start their own.
 */
export function tracedHandler(durableName: string, handler: EventHandler): EventHandler {
  const tracer = tracerOf(durableName);
  return async (event) => {
    const parent = event.traceContext ? propagation.extract(ROOT_CONTEXT, event.traceContext) : ROOT_CONTEXT;
    const span = tracer.startSpan(
      `${event.type} process`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.operation.type': 'process',
          'messaging.consumer.group.name': durableName,
          'messaging.message.id': event.id,
          'ca.service': durableName,
        },
      },
      parent,
    );
    try {
      await context.with(trace.setSpan(parent, span), () => handler(event));
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  };
}

import { Logger } from '@nestjs/common';
import { EventEnvelope, EventType, eventEnvelopeProblem } from '@ca/contracts';
import { metricsRegistry } from '@ca/observability';
import { Counter } from 'prom-client';
import { DeadLetterSink } from '../dead-letters/dead-letters';
import { BatchEventHandler, EventRoutes, TypedEventHandlers } from './event-bus';

const KNOWN_TYPES = new Set<string>(Object.values(EventType));

/** Events a consumer set aside because they did not parse; `type` only for known types (bounded). */
export const rejectedEventsTotal = new Counter({
  name: 'ca_events_rejected_total',
  help: 'Events a durable consumer acknowledged without applying them because their envelope or payload did not parse.',
  labelNames: ['consumer', 'type'] as const,
  registers: [metricsRegistry],
});

const logger = new Logger('RejectedEvents');

/**
 * Whether a delivered event may be applied. One that does not parse is logged with the reason,
 * counted, and set aside: the caller acknowledges it and moves on, so a malformed event never
 * blocks the consumer (it would be redelivered forever) and never reaches a projection.
 */
export function acceptEvent(consumer: string, event: EventEnvelope): boolean {
  const problem = eventEnvelopeProblem(event);
  if (problem === undefined) return true;
  const type = typeof event?.type === 'string' && KNOWN_TYPES.has(event.type) ? event.type : 'unknown';
  rejectedEventsTotal.inc({ consumer, type });
  logger.warn(
    { consumer, eventId: String(event?.id).slice(0, 64), type, reason: problem },
    'event refused: it does not match its schema; acknowledged and set aside',
  );
  return false;
}

/**
 * Routes by type, with every handled event schema-checked first (libs/contracts
 * event-payload.parsers): each handler gets only the events of its run that parse, typed by the
 * event map (EventPayloads). Types the consumer does not handle are acknowledged and skipped unread.
 */
export function routeValidated(
  consumer: string,
  handlers: TypedEventHandlers,
  deadLetters?: DeadLetterSink,
): EventRoutes {
  const routes: Record<string, BatchEventHandler> = {};
  for (const [type, handler] of Object.entries(handlers)) {
    if (handler) routes[type] = validatedBatch(consumer, handler as BatchEventHandler, deadLetters);
  }
  return { routes };
}

/**
 * A run handler that applies only the events of the run that parse; the others are set aside
 * (into `deadLetters` when given, with the reason).
 */
function validatedBatch(
  consumer: string,
  handler: BatchEventHandler,
  deadLetters?: DeadLetterSink,
): BatchEventHandler {
  return async (events) => {
    const accepted: EventEnvelope[] = [];
    for (const event of events) {
      if (acceptEvent(consumer, event)) accepted.push(event);
      else {
        const detail = eventEnvelopeProblem(event) ?? 'invalid';
        await deadLetters?.record({ consumer, event, reason: 'invalid', detail, attempts: 1 });
      }
    }
    if (accepted.length > 0) await handler(accepted);
  };
}

import { randomUUID } from 'node:crypto';
import { context, propagation } from '@opentelemetry/api';
import { REQUEST_ID_HEADER, currentRequestId } from '@ca/observability';
import { EventEnvelope } from '@ca/contracts';
import { EntityManager } from 'typeorm';

/**
 * A new event with the trace and request id of the request in progress (outboxTraceContextSql),
 * taken now: build it while that request's context is active, even if it is stored later.
 */
export function newEvent<T extends { tenantId: string }>(type: string, payload: T): EventEnvelope<T> {
  const event: EventEnvelope<T> = {
    id: randomUUID(),
    type,
    tenantId: payload.tenantId,
    occurredAt: new Date().toISOString(),
    payload,
  };
  const traceContext: Record<string, string> = {};
  propagation.inject(context.active(), traceContext);
  const requestId = currentRequestId();
  if (requestId) traceContext[REQUEST_ID_HEADER] = requestId;
  if (Object.keys(traceContext).length > 0) event.traceContext = traceContext;
  return event;
}

/**
 * Stores events in the producing schema's outbox inside the caller's transaction, so the state
 * change and its events commit together or not at all (transactional outbox); one statement for
 * all of them, their outbox order (seq) the order given.
 */
export async function insertEvents(
  manager: EntityManager,
  schema: string,
  events: readonly EventEnvelope[],
): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map(
    (_, i) => `($${i * 6 + 1}, $${i * 6 + 2}, $${i * 6 + 3}, $${i * 6 + 4}, $${i * 6 + 5}, $${i * 6 + 6})`,
  );
  await manager.query(
    `INSERT INTO ${schema}.outbox (id, type, tenant_id, payload, occurred_at, trace_context) VALUES ${rows.join(', ')}`,
    events.flatMap((event) => [
      event.id,
      event.type,
      event.tenantId,
      JSON.stringify(event.payload),
      event.occurredAt,
      event.traceContext ? JSON.stringify(event.traceContext) : null,
    ]),
  );
}

/** Records one event in the outbox inside the caller's transaction (newEvent, then insertEvents). */
export async function recordEvent<T extends { tenantId: string }>(
  manager: EntityManager,
  schema: string,
  type: string,
  payload: T,
): Promise<EventEnvelope<T>> {
  const event = newEvent(type, payload);
  await insertEvents(manager, schema, [event]);
  return event;
}

import { randomUUID } from 'node:crypto';
import { context, propagation } from '@opentelemetry/api';
import { REQUEST_ID_HEADER, currentRequestId } from '@ca/observability';
import { EventEnvelope } from '@ca/contracts';
import { EntityManager } from 'typeorm';
import { prepared } from '@ca/persistence';

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
  await manager.query(insertEventsSql(schema), [
    events.map((event) => event.id),
    events.map((event) => event.type),
    events.map((event) => event.tenantId),
    events.map((event) => JSON.stringify(event.payload)),
    events.map((event) => event.occurredAt),
    events.map((event) => (event.traceContext ? JSON.stringify(event.traceContext) : null)),
  ]);
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

/** One text for any number of events (arrays, not a VALUES row each), so it is prepared once. */
function insertEventsSql(schema: string): string {
  return prepared(
    `INSERT INTO ${schema}.outbox (id, type, tenant_id, payload, occurred_at, trace_context)
     SELECT id, type, tenant_id, payload, occurred_at, trace_context
       FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::jsonb[], $5::timestamptz[], $6::jsonb[])
            WITH ORDINALITY AS e(id, type, tenant_id, payload, occurred_at, trace_context, n)
      ORDER BY n`,
  );
}

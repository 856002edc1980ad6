import { randomUUID } from 'node:crypto';
import { context, propagation } from '@opentelemetry/api';
import { REQUEST_ID_HEADER, currentRequestId } from '@ca/observability';
import { EventEnvelope } from '@ca/contracts';
import { EntityManager } from 'typeorm';

/**
 * Records an event in the producing schema's outbox inside the caller's transaction, so the
 * state change and its event commit together or not at all (transactional outbox).
 */
export async function recordEvent<T extends { tenantId: string }>(
  manager: EntityManager,
  schema: string,
  type: string,
  payload: T,
): Promise<EventEnvelope<T>> {
  const event: EventEnvelope<T> = {
    id: randomUUID(),
    type,
    tenantId: payload.tenantId,
    occurredAt: new Date().toISOString(),
    payload,
  };
  // The trace and request id of the request in progress travel with the event (outboxTraceContextSql).
  const traceContext: Record<string, string> = {};
  propagation.inject(context.active(), traceContext);
  const requestId = currentRequestId();
  if (requestId) traceContext[REQUEST_ID_HEADER] = requestId;
  if (Object.keys(traceContext).length > 0) event.traceContext = traceContext;
  await manager.query(
    `INSERT INTO ${schema}.outbox (id, type, tenant_id, payload, occurred_at, trace_context) VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      event.id,
      event.type,
      event.tenantId,
      JSON.stringify(event.payload),
      event.occurredAt,
      event.traceContext ? JSON.stringify(event.traceContext) : null,
    ],
  );
  return event;
}
